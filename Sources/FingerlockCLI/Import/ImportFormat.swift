import ArgumentParser

/// What `notes import --format` reads.
enum ImportFormat: String, ExpressibleByArgument, CaseIterable, Sendable {
    /// fingerlock's own `export --format json`: ids, dates and tags kept.
    case fingerlockJSON = "fingerlock-json"
    /// A directory of `.md`, `.markdown` and `.txt` files, one note each.
    case markdownDirectory = "markdown-dir"
    /// jrnl's `--export json`.
    case jrnlJSON = "jrnl-json"
    /// A password store, read through `pass show`.
    case pass

    /// Whether PATH names a file of JSON (else stdin), rather than a directory.
    var readsJSON: Bool { self == .fingerlockJSON || self == .jrnlJSON }
}
