public import Foundation

/// Which notes a listing or a search keeps, judged on the decrypted header (tags and dates are
/// sealed, so filtering can only happen after decryption).
public struct NoteFilter: Sendable, Equatable {
    /// Every one of these tags (ignoring case): repeated `--tag` narrows, as in gopass and jrnl.
    public var tags: [String]
    /// Modified at or after this moment.
    public var modifiedFrom: Date?
    /// Modified before this moment (exclusive, so a day's end needs no 23:59:59.999).
    public var modifiedBefore: Date?

    public init(tags: [String] = [], modifiedFrom: Date? = nil, modifiedBefore: Date? = nil) {
        self.tags = tags
        self.modifiedFrom = modifiedFrom
        self.modifiedBefore = modifiedBefore
    }

    /// Keeps everything: listing without options pays for no checks.
    var keepsAll: Bool { tags.isEmpty && modifiedFrom == nil && modifiedBefore == nil }

    func admits(_ summary: NoteSummary) -> Bool {
        if let modifiedFrom, summary.modified < modifiedFrom { return false }
        if let modifiedBefore, summary.modified >= modifiedBefore { return false }
        return tags.allSatisfy(summary.hasTag)
    }
}
