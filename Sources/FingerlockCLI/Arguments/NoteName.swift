import Foundation
import Vault

/// How much a command may take from a loosely typed note name, by what it does with the note.
enum NoteNaming: Equatable {
    /// It only reads (`show`, `--clip`, `history`): an exact title wins over an id start shorter than
    /// `NoteName.unambiguousIDLength`, and a loose match is taken (and said).
    case reading
    /// It changes the note with the note shown first (a confirmation, the editor): as `reading`, but a
    /// name that is a note's exact title and the start of another's id names neither.
    case changing
    /// It acts unseen (`--yes`, `--purge`, a piped `edit`, named here): only an exact title that no
    /// other note's id starts with, or an id start of at least `NoteName.unambiguousIDLength`.
    case unattended(String)
}

/// A note named on the command line, and the rules that find the note it means among notes
/// (id, title) — written once for the vault's notes and for the trash.
///
/// 1. The whole title, ignoring case, and the start of an id: an exact title is what a person
///    types (`2fa`, `cafe`, `2024` are also the start of some id in a few hundred notes), so it wins
///    over a short id start for reading; where both fit, anything that changes a note refuses and
///    lists both. An id start of 8 characters (what `notes list` shows) is an id by design, and wins
///    for reading.
/// 2. Otherwise an id start that one note has.
/// 3. Otherwise the title rules of `NoteTitleMatch` beyond the exact one (its start, then fuzzy),
///    never for `unattended`.
struct NoteName {
    /// An id start this long was shown by `notes list` (and by every message that names a note).
    static let unambiguousIDLength = 8

    let name: String

    init(_ name: String) { self.name = name }

    /// What a name finds: one note (with the title rule when it was a fuzzy one, which a caller
    /// says), or several that a person at a terminal can choose among.
    enum Outcome {
        case found(id: UUID, loose: NoteTitleMatch.Rule?)
        /// All the notes that fit, and the one-line error that lists the first of them.
        case several([(id: UUID, title: String)], message: String)
    }

    /// The note found, and the title rule when it was a fuzzy one, which a caller says.
    func resolve(
        among notes: [(id: UUID, title: String)], naming: NoteNaming
    ) throws(CLIError) -> (id: UUID, loose: NoteTitleMatch.Rule?) {
        switch try outcome(among: notes, naming: naming) {
        case .found(let id, let loose): return (id, loose)
        case .several(_, let message): throw CLIError(.usage, message)
        }
    }

    /// The note or notes found; an error when none is, or when what was typed may not be taken.
    func outcome(among notes: [(id: UUID, title: String)], naming: NoteNaming) throws(CLIError) -> Outcome {
        let lowered = name.lowercased()
        let isIDStart = (try? Vault.checkNoteIDPrefix(name)) != nil
        let longID = isIDStart && name.count >= Self.unambiguousIDLength
        let byID = isIDStart ? notes.filter { $0.id.uuidString.lowercased().hasPrefix(lowered) } : []
        let byTitle = notes.filter { !$0.title.isEmpty && $0.title.lowercased() == lowered }
        let shown = NoteIDArgument.candidatesShown

        // A whole id names its note, whatever any title says.
        if name.count == 36, let exact = byID.first { return .found(id: exact.id, loose: nil) }
        if byTitle.count > 1 {
            return .several(
                byTitle,
                message: NoteIDArgument.ambiguityMessage(name, Array(byTitle.prefix(shown)), more: byTitle.count > shown, by: .exact))
        }
        if let titled = byTitle.first {
            let others = byID.filter { $0.id != titled.id }
            if others.isEmpty { return .found(id: titled.id, loose: nil) }
            switch naming {
            case .reading where !longID:
                return .found(id: titled.id, loose: nil)
            case .reading where others.count == 1:
                return .found(id: others[0].id, loose: nil)
            default:
                return .several([titled] + others, message: titleAndIDMessage(titled, others))
            }
        }
        if byID.count > 1 {
            return .several(byID, message: NoteIDArgument.ambiguityMessage(name, Array(byID.prefix(shown)), more: byID.count > shown))
        }
        if let only = byID.first {
            if case .unattended(let flag) = naming, !longID {
                throw CLIError(
                    .usage,
                    "\"\(TerminalSafeText.line(name))\" is only the start of an id: \(flag) acts on a whole title or at least "
                        + "\(Self.unambiguousIDLength) characters of the id (\(only.id.uuidString.lowercased().prefix(Self.unambiguousIDLength))).")
            }
            return .found(id: only.id, loose: nil)
        }
        guard let match = NoteTitleMatch.find(name, in: notes.map(\.title)) else {
            let nearest = NoteTitleMatch.nearest(name, in: notes.map(\.title), count: 3).map {
                "\"\(TerminalSafeText.line(notes[$0].title))\""
            }
            let hint = nearest.isEmpty ? "" : "; the nearest: " + nearest.joined(separator: ", ")
            throw CLIError(.notFound, "No note has an id starting with \"\(TerminalSafeText.line(name))\" or a title like it\(hint).")
        }
        if match.matches.count > 1 {
            let candidates = match.matches.map { notes[$0] }
            return .several(
                candidates,
                message: NoteIDArgument.ambiguityMessage(name, Array(candidates.prefix(shown)), more: candidates.count > shown, by: match.rule))
        }
        if case .unattended(let flag) = naming {
            throw CLIError(
                .usage,
                "\"\(TerminalSafeText.line(name))\" matches only by \(match.rule.rawValue): \(flag) acts on a whole title or at least "
                    + "\(Self.unambiguousIDLength) characters of an id.")
        }
        // A title's start is what was typed; only a fuzzy match is said.
        return .found(id: notes[match.matches[0]].id, loose: match.rule == .prefix ? nil : match.rule)
    }

    /// `"4eff" is the title of 2c9a01b3 and the start of the id of 4eff0a12 (bank): name it by more of the id.`
    private func titleAndIDMessage(_ titled: (id: UUID, title: String), _ others: [(id: UUID, title: String)]) -> String {
        let ids = others.prefix(NoteIDArgument.candidatesShown).map { other in
            "\(other.id.uuidString.lowercased().prefix(Self.unambiguousIDLength)) (\(other.title.isEmpty ? "untitled" : TerminalSafeText.line(other.title)))"
        }
        let safe = TerminalSafeText.line(name)
        return "\"\(safe)\" is the title of \(titled.id.uuidString.lowercased().prefix(Self.unambiguousIDLength)) and the start of the id of "
            + "\(ids.joined(separator: ", "))\(others.count > NoteIDArgument.candidatesShown ? ", …" : ""): name the note by its whole id "
            + "or at least \(Self.unambiguousIDLength) characters of it."
    }
}
