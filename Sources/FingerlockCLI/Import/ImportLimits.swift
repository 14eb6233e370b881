import Vault

/// How much one import may read. There was no bound: a 600 MB sparse `.md` was read whole (twice
/// its size in memory) and the process died failing to allocate. Inputs are now read with a bound,
/// never more than the limit and one byte, so a huge or endless input (a sparse file, `/dev/zero`
/// behind a name) is refused before it is in memory.
enum ImportLimits {
    /// One note: a Markdown file, a JSON entry's title, body and tags, what `pass show` printed.
    /// Far above any note typed or pasted, far below what makes the import's memory a problem.
    static let noteBytes = 16 << 20
    /// A whole import: a JSON export, or all files of a directory or entries of a store together.
    static let inputBytes = 256 << 20

    static let noteSize = "16 MiB"
    static let inputSize = "256 MiB"

    /// The bytes a note holds in text: title, body and tags.
    static func size(of note: Note) -> Int {
        note.title.utf8.count + note.body.utf8.count + note.tags.reduce(0) { $0 + $1.utf8.count }
    }

    static func noteTooLarge(_ what: String) -> CLIError {
        CLIError(.dataError, "\(what) is larger than \(noteSize), the most one note may hold; nothing was imported.")
    }

    /// `holder` says what holds too much, with its verb: "stdin holds", "the files in DIR hold".
    static func inputTooLarge(_ holder: String) -> CLIError {
        CLIError(.dataError, "\(holder) more than \(inputSize), the most one import reads (import it in parts); nothing was imported.")
    }
}
