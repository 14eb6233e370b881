import ArgumentParser
import Foundation
import Vault

/// A note named on the command line, by its id, the start of one, or its title (`NoteName` has the
/// rules). Several notes that fit are listed (id and title), as git does for an ambiguous object
/// name, on the one line every error gets. Resolved with the vault already open: naming a note by
/// its title asks for no second touch.
enum NoteIDArgument {
    /// How many candidates an ambiguous start lists.
    static let candidatesShown = 5
    /// Longer than any title worth typing: refused before anything is asked.
    static let longest = 4096
    /// Makes the shell ask the binary, which answers before parsing (`NoteCompletion`); never run.
    static var completion: CompletionKind { .custom { _, _, _ in [] } }
    /// The argument's help, the same for every command that takes a note.
    static let help = "The note's title or id (or a unique start of the id), else the start of its title or a fuzzy match."

    /// Refuses what cannot name a note before anything asks for a touch or the passcode.
    static func validate(_ name: String) throws {
        guard !name.isEmpty, name.utf8.count <= longest, !name.contains(where: \.isNewline) else {
            throw CLIError(.usage, "\"\(TerminalSafeText.line(String(name.prefix(64))))\" is not a note id, the start of one, or a title.")
        }
    }

    /// The note `name` means among the vault's notes (`NoteName`'s rules for `naming`). `person`
    /// hears which title a loose match took, and chooses when the name fits several notes (never
    /// for a command that acts unseen, and not among more than `CandidatesMenu.largest`).
    static func resolve(
        _ name: String, in vault: Vault, naming: NoteNaming = .reading, person: NamingPerson = .nobody
    ) async throws -> UUID {
        // Titles are sealed in the headers: one pass over them, as `notes list` makes, no body opened.
        let notes = try vault.list().map { (id: $0.id, title: $0.title) }
        let outcome: NoteName.Outcome
        do {
            outcome = try NoteName(name).outcome(among: notes, naming: naming)
        } catch {
            // Removed a moment ago is the likeliest reason a known note is not found.
            if error.status == .notFound, let trashed = try? resolveTrashed(name, in: vault, naming: .unattended("")) {
                let short = String(trashed.uuidString.lowercased().prefix(8))
                throw CLIError(
                    .notFound,
                    "\"\(TerminalSafeText.line(name))\" is in the trash: `fingerlock notes trash restore \(short)` brings it back.")
            }
            throw error
        }
        let found: (id: UUID, loose: NoteTitleMatch.Rule?)
        switch outcome {
        case .found(let id, let loose):
            found = (id, loose)
        case .several(let candidates, let message):
            let unseen = if case .unattended = naming { true } else { false }
            guard !unseen, let choose = person.choose, candidates.count <= CandidatesMenu.largest,
                let chosen = try await choose(name, candidates)
            else { throw CLIError(.usage, message) }
            return chosen
        }
        if let rule = found.loose, let title = notes.first(where: { $0.id == found.id })?.title {
            person.notice("\"\(TerminalSafeText.line(name))\" is taken as \"\(TerminalSafeText.line(title))\" (\(rule.rawValue)).")
        }
        return found.id
    }

    /// The note in the trash `name` means, by the same rules among the trashed notes (`notes trash
    /// restore github`). Restoring loses nothing, so a loose match is taken unless told.
    static func resolveTrashed(_ name: String, in vault: Vault, naming: NoteNaming = .reading) throws -> UUID {
        let trashed = try vault.trash().map { (id: $0.id, title: $0.title) }
        do {
            return try NoteName(name).resolve(among: trashed, naming: naming).id
        } catch {
            guard error.status == .notFound else { throw CLIError(error.status, error.message + " (in the trash)") }
            throw CLIError(
                .notFound,
                "No note in the trash has an id starting with \"\(TerminalSafeText.line(name))\" or a title like it (see `fingerlock notes trash`).")
        }
    }

    /// `"3f" matches 2 notes: 3f2a1b2c (door), 3f9e0011 (bank); type more of the id.` Each id is
    /// cut as short as still tells the candidates apart, and never below the 8 characters `notes
    /// list` shows. Matched by title: `"bank" matches 2 notes by title start: …; use more of the
    /// title or an id.`
    static func ambiguityMessage(
        _ name: String, _ candidates: [(id: UUID, title: String)], more: Bool, by rule: NoteTitleMatch.Rule? = nil
    ) -> String {
        let ids = candidates.map { $0.id.uuidString.lowercased() }
        let length = zip(ids, ids.dropFirst()).map { pair in
            zip(pair.0, pair.1).prefix { $0 == $1 }.count + 1
        }.reduce(8, max)
        let listed = zip(ids, candidates).map { id, candidate in
            "\(id.prefix(length)) (\(candidate.title.isEmpty ? "untitled" : TerminalSafeText.line(candidate.title)))"
        }
        let count = more ? "more than \(candidates.count) notes" : "\(candidates.count) notes"
        let how = rule.map { " by \($0.rawValue)" } ?? ""
        let hint = rule == nil ? "type more of the id" : "use more of the title, or an id"
        return "\"\(TerminalSafeText.line(name))\" matches \(count)\(how): \(listed.joined(separator: ", "))\(more ? ", …" : ""); \(hint)."
    }
}
