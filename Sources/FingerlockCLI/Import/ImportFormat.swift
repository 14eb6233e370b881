import ArgumentParser

/// What `notes import --format` reads.
enum ImportFormat: String, ExpressibleByArgument, CaseIterable, Sendable {
    /// fingerlock's own `export --format json` (also accepted as `fingerlock-json`, its first name):
    /// ids, dates and tags kept.
    case fingerlockJSON = "json"
    /// A directory of `.md`, `.markdown` and `.txt` files, one note each (`export --format markdown-dir`).
    case markdownDirectory = "markdown-dir"
    /// jrnl's `--export json`.
    case jrnlJSON = "jrnl-json"
    /// A password store, read through `pass show`.
    case pass

    init?(argument: String) {
        self.init(rawValue: argument == "fingerlock-json" ? "json" : argument)
    }

    /// Whether PATH names a file of JSON (else stdin), rather than a directory.
    var readsJSON: Bool { self == .fingerlockJSON || self == .jrnlJSON }
}
