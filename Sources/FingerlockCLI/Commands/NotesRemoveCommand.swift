import ArgumentParser
import Auth
import Foundation
import Vault

extension NotesCommand {
    struct Remove: FingerlockCommand {
        static let configuration = CommandConfiguration(
            commandName: "rm",
            abstract: "Move notes to the trash (asks first unless --yes); --purge deletes them for good.",
            discussion: """
                A note in the trash is restored with `notes trash restore ID` until the trash is emptied \
                (`notes trash empty`) or it is older than the trash-keep setting (default 720h = 30 days). \
                Several ids are all removed or, if one is unknown, none.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var passcode: PasscodeOptions
        @Argument(help: ArgumentHelp(NoteIDArgument.help, valueName: "id-or-title"), completion: NoteIDArgument.completion)
        var ids: [String] = []
        @Flag(name: .long, help: "Do not ask for confirmation.") var yes = false
        @Flag(name: .long, help: "Delete for good, with the notes' history, instead of moving them to the trash.")
        var purge = false

        func validate() throws {
            guard !ids.isEmpty else { throw ValidationError("Name the note to remove: fingerlock notes rm ID [ID...].") }
            for id in ids { try NoteIDArgument.validate(id) }
        }

        func run(with dependencies: CLIDependencies) async throws {
            let vault = try await NotesCommand.unlock(global, passcode, dependencies)
            defer { vault.close() }
            var notes: [NoteSummary] = []
            for id in ids {
                // Unseen (--yes) or for good (--purge): only a whole title or an id of 8 characters.
                let naming: NoteNaming = purge ? .unattended("--purge") : yes ? .unattended("--yes") : .changing
                let noteID = try await NoteIDArgument.resolve(id, in: vault, naming: naming, person: .atTerminal(dependencies))
                if !notes.contains(where: { $0.id == noteID }) { notes.append(try vault.note(id: noteID).summary) }
            }
            if !yes {
                let titles = notes.prefix(5).map { "\"\($0.title.isEmpty ? "(untitled)" : TerminalSafeText.line($0.title))\"" }
                let named = titles.joined(separator: ", ") + (notes.count > 5 ? " and \(notes.count - 5) more" : "")
                let what = notes.count == 1 ? named : "\(notes.count) notes (\(named))"
                let confirmed = try await Confirmation.ask(
                    purge ? "Delete \(what) for good?" : "Delete \(what)?", terminal: dependencies.openTerminal(),
                    unlessFlag: "--yes")
                guard confirmed else { throw CLIError(.cancelled, "Not deleted.") }
            }
            if purge {
                try vault.deleteNotes(notes.map(\.id))
            } else {
                try vault.trashNotes(notes.map(\.id))
            }
            for note in notes {
                dependencies.console.print(
                    "\(purge ? "Deleted" : "Moved") \(NotesCommand.shortID(note.id)) \(purge ? "for good" : "to the trash"): \(TerminalSafeText.line(note.title))"
                )
            }
        }
    }
}
