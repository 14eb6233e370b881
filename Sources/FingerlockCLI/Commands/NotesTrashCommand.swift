import ArgumentParser
import Auth
import Foundation
import Vault

/// `notes trash`: what `notes rm` removed, kept until emptied or older than the trash-keep setting.
/// One command with an action word (not a group), so bare `notes trash` lists, as `git stash` does.
struct NotesTrashCommand: FingerlockCommand {
    static let configuration = CommandConfiguration(
        commandName: "trash",
        abstract: "List the trash; `trash restore ID...` brings notes back, `trash empty` deletes them for good.",
        discussion: """
            Notes stay in the trash for the trash-keep setting (default 720h = 30 days), then the next \
            change to your notes deletes them, with their history. `empty --older-than 7d` deletes only \
            those removed more than 7 days ago. --json prints [{id, title, tags, created, modified, deleted}] \
            for the listing, and the notes restored or {"deleted": N} for the other two.
            """)

    enum Action: String, ExpressibleByArgument, CaseIterable {
        case list, restore, empty
    }

    @OptionGroup var global: GlobalOptions
    @OptionGroup var passcode: PasscodeOptions
    @Argument(help: ArgumentHelp("list (the default), restore or empty.", valueName: "action")) var action: Action = .list
    @Argument(help: ArgumentHelp("With restore: notes in the trash, by id (or a unique start of it) or title.", valueName: "id-or-title"))
    var ids: [String] = []
    @Option(
        name: .customLong("older-than"), help: ArgumentHelp("With empty: only notes removed longer ago than this (7d, 12h).", valueName: "duration"))
    var olderThan: String?
    @Flag(name: .long, help: "With empty: do not ask for confirmation.") var yes = false
    @Flag(name: .long, help: "Print JSON.") var json = false
    var jsonOutput: Bool { json }

    func validate() throws {
        switch action {
        case .restore:
            guard !ids.isEmpty else { throw ValidationError("Name the notes to restore: fingerlock notes trash restore NOTE [NOTE...].") }
            for id in ids { try NoteIDArgument.validate(id) }
        case .list, .empty:
            guard ids.isEmpty else { throw ValidationError("`notes trash \(action.rawValue)` takes no note id.") }
        }
        if olderThan != nil && action != .empty { throw ValidationError("--older-than goes with `notes trash empty`.") }
        _ = try age
    }

    /// --older-than, parsed.
    var age: Duration? {
        get throws {
            guard let olderThan else { return nil }
            do {
                return try SecuritySettings.duration(olderThan, for: "--older-than")
            } catch {
                throw ValidationError(error.message)
            }
        }
    }

    func run(with dependencies: CLIDependencies) async throws {
        let console = dependencies.console
        let vault = try await NotesCommand.unlock(global, passcode, dependencies, json: json)
        defer { vault.close() }
        switch action {
        case .list:
            let trashed = try vault.trash()
            if json { return try console.printJSON(trashed) }
            if trashed.isEmpty {
                console.err.write("The trash is empty.\n")
                return
            }
            for note in trashed {
                console.print(
                    "\(NotesCommand.shortID(note.id))  deleted \(UTCDay.string(note.deleted))  "
                        + (note.title.isEmpty ? "(untitled)" : TerminalSafeText.line(note.title)))
            }
        case .restore:
            var noteIDs: [UUID] = []
            // A title that is also the start of another trashed note's id names neither.
            for id in ids { noteIDs.append(try NoteIDArgument.resolveTrashed(id, in: vault, naming: .changing)) }
            let restored = try vault.restoreFromTrash(noteIDs)
            if json { return try console.printJSON(restored) }
            for note in restored {
                console.print("Restored \(NotesCommand.shortID(note.id)): \(TerminalSafeText.line(note.title))")
            }
        case .empty:
            let cutoff = try age.map { dependencies.now().addingTimeInterval(-TimeInterval($0.components.seconds)) }
            let due = try vault.trash().filter { cutoff == nil || $0.deleted < cutoff! }
            if !due.isEmpty && !yes {
                let confirmed = try await Confirmation.ask(
                    "Delete the \(due.count) \(due.count == 1 ? "note" : "notes") in the trash\(cutoff == nil ? "" : " removed before \(UTCDay.string(cutoff!))") for good?",
                    terminal: dependencies.openTerminal(), unlessFlag: "--yes")
                guard confirmed else { throw CLIError(.cancelled, "Nothing was deleted.") }
            }
            let count = due.isEmpty ? 0 : try vault.emptyTrash(before: cutoff)
            if json { return try console.printJSON(["deleted": count]) }
            console.print(
                count == 0
                    ? "Nothing to delete: the trash holds no such note."
                    : "Deleted \(count) \(count == 1 ? "note" : "notes") from the trash for good.")
        }
    }
}
