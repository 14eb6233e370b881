import Foundation
import Vault

/// A note named on the command line by its id or a unique start of it. A start that several notes
/// share lists them (id and title), as git does for an ambiguous object name, on the one line every
/// error gets.
enum NoteIDArgument {
    /// How many candidates an ambiguous start lists.
    static let candidatesShown = 5

    /// Refuses what cannot be an id before anything asks for a touch or the passcode.
    static func validate(_ prefix: String) throws {
        do {
            try Vault.checkNoteIDPrefix(prefix)
        } catch {
            throw CLIError(.usage, error.message)
        }
    }

    static func resolve(_ prefix: String, in vault: Vault) throws -> UUID {
        let resolved: Result<UUID, VaultError> = Result { () throws(VaultError) in try vault.resolveNoteID(prefix) }
        guard case .failure(let error) = resolved, error.code == .ambiguous else { return try resolved.get() }
        let ids = try vault.noteIDs(matchingPrefix: prefix, limit: candidatesShown + 1)
        var shown: [(id: UUID, title: String)] = []
        for id in ids.prefix(candidatesShown) {
            shown.append((id, try vault.note(id: id).title))
        }
        throw CLIError(.usage, ambiguityMessage(prefix, shown, more: ids.count > candidatesShown))
    }

    /// `"3f" matches 2 notes: 3f2a1b2c (door), 3f9e0011 (bank); type more of the id.` Each id is
    /// cut as short as still tells the candidates apart, and never below the 8 characters `notes
    /// list` shows.
    static func ambiguityMessage(_ prefix: String, _ candidates: [(id: UUID, title: String)], more: Bool) -> String {
        let ids = candidates.map { $0.id.uuidString.lowercased() }
        let length = zip(ids, ids.dropFirst()).map { pair in
            zip(pair.0, pair.1).prefix { $0 == $1 }.count + 1
        }.reduce(8, max)
        let listed = zip(ids, candidates).map { id, candidate in
            "\(id.prefix(length)) (\(candidate.title.isEmpty ? "untitled" : candidate.title))"
        }
        let count = more ? "more than \(candidates.count) notes" : "\(candidates.count) notes"
        return "\"\(prefix)\" matches \(count): \(listed.joined(separator: ", "))\(more ? ", …" : ""); type more of the id."
    }
}
