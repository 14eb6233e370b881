import Foundation
import Vault

/// Reads fingerlock's own JSON export (`export --format json`): an array of notes with id, title,
/// body, tags, created and modified (ISO 8601). Everything is kept as exported, so an export
/// imported into a new vault exports the same again.
enum FingerlockJSONImport {
    static func notes(from data: Data) throws -> [Note] {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            do throws(ImportDates.Problem) {
                return try ImportDates.iso8601(text)
            } catch {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: decoder.codingPath, debugDescription: "\(ImportDates.quoted(text)) \(error.predicate)"))
            }
        }
        let notes: [Note]
        do {
            notes = try decoder.decode([Note].self, from: data)
        } catch let error as DecodingError {
            throw CLIError(.dataError, "The fingerlock JSON export is malformed: \(ImportProblem.describe(error)); nothing was imported.")
        } catch {
            throw CLIError(.dataError, "The fingerlock JSON export is malformed; nothing was imported.")
        }
        for (index, note) in notes.enumerated() where ImportLimits.size(of: note) > ImportLimits.noteBytes {
            throw ImportLimits.noteTooLarge("Entry \(index + 1) of the fingerlock JSON export")
        }
        var seen = Set<UUID>()
        for note in notes where !seen.insert(note.id).inserted {
            throw CLIError(.dataError, "The export holds the id \(note.id.uuidString.lowercased()) twice; nothing was imported.")
        }
        return notes.map { note in
            var note = note
            note.tags = storableTags(note.tags)
            return note
        }
    }

    /// Tags as fingerlock itself stores them: trimmed, none empty, none twice ignoring case (the
    /// first spelling kept). A hand-edited file's `""` or `" "` would be a tag no command could
    /// name, so none could remove it. A leading `#` is kept: `notes add --tag '##x'` stores `#x`.
    static func storableTags(_ tags: [String]) -> [String] {
        var seen = Set<String>()
        return tags.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            .filter { !$0.isEmpty && seen.insert($0.lowercased()).inserted }
    }
}
