public import Foundation

/// How much of a note's past the vault keeps: earlier revisions per note, and how long a removed
/// note waits in the trash. The values are the user's settings (Auth's `history-limit` and
/// `trash-keep`, which the CLI applies after unlocking); these defaults are theirs too.
public struct NoteRetention: Equatable, Sendable {
    /// Earlier revisions kept per note; the oldest beyond it go at the next edit (0 keeps none).
    public var revisionsKept: Int
    /// How long a note stays in the trash before a write purges it.
    public var trashKept: TimeInterval

    public init(revisionsKept: Int = 10, trashKept: TimeInterval = 30 * 86_400) {
        self.revisionsKept = max(0, revisionsKept)
        self.trashKept = max(0, trashKept)
    }
}
