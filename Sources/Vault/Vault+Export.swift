public import Foundation

/// Plaintext export. The vault only produces the text; asking the user to confirm, and where it
/// goes, is the caller's business.
extension Vault {
    /// Every note as a JSON array of `Note` (ISO 8601 dates), oldest first. `progress` hears how
    /// many notes are read so far, here and in `exportMarkdown`.
    public func exportJSON(progress: ((Int) -> Void)? = nil) throws(VaultError) -> Data {
        let notes = try allNotes(progress: progress)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try guarded { try encoder.encode(notes) }
    }

    /// Every note as Markdown: a heading per note, its metadata as a list, then the body.
    public func exportMarkdown(progress: ((Int) -> Void)? = nil) throws(VaultError) -> String {
        var output = ""
        for note in try allNotes(progress: progress) {
            let title = note.title.isEmpty ? "(untitled)" : note.title.replacingOccurrences(of: "\n", with: " ")
            output += "# \(title)\n\n"
            output += "- id: \(note.id.storageKey)\n"
            if !note.tags.isEmpty { output += "- tags: \(note.tags.joined(separator: ", "))\n" }
            output += "- created: \(note.created.formatted(.iso8601))\n"
            output += "- modified: \(note.modified.formatted(.iso8601))\n\n"
            output += note.body
            if !note.body.hasSuffix("\n") { output += "\n" }
            output += "\n"
        }
        return output
    }
}
