import ArgumentParser
import Foundation
import Vault

/// `notes history ID`: a note's earlier revisions (the history-limit setting says how many are kept),
/// one shown in full, or one made current again.
struct NotesHistoryCommand: FingerlockCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "List a note's earlier revisions; --show N prints one, --restore N makes it current again.",
        discussion: """
            Every edit keeps the version it replaces, up to the history-limit setting (default 10; the oldest \
            go first). --restore N saves revision N as a new revision, so the current text joins the history \
            and nothing is lost. --json prints {id, current, revisions: [{number, title, tags, modified, size}]}, \
            or with --show the revision as `notes show --json` prints a note.
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var passcode: PasscodeOptions
    @Argument(help: ArgumentHelp(NoteIDArgument.help, valueName: "id-or-title"), completion: NoteIDArgument.completion) var id: String
    @Option(name: .long, help: ArgumentHelp("Print revision N in full.", valueName: "n")) var show: UInt64?
    @Option(name: .long, help: ArgumentHelp("Make revision N the note's content again.", valueName: "n")) var restore: UInt64?
    @OptionGroup var clip: ClipOptions
    @Flag(name: .long, help: "Print JSON.") var json = false
    var jsonOutput: Bool { json }

    func validate() throws {
        try NoteIDArgument.validate(id)
        if show != nil && restore != nil { throw ValidationError("--show and --restore do different things: choose one.") }
        if show == 0 || restore == 0 { throw ValidationError("Revisions are numbered from 1 (see `notes history ID`).") }
        // The same copying as `notes show`, of the revision --show names (an old password, say).
        if (clip.copies || clip.line != nil) && show == nil {
            throw ValidationError("--clip, --clip-all and --line take a revision: add --show N.")
        }
        if (clip.copies || clip.line != nil) && json {
            throw ValidationError("--clip and --line print or copy one revision's text: leave out --json.")
        }
    }

    func run(with dependencies: CLIDependencies) async throws {
        let console = dependencies.console
        let clipboard = try clip.clipboard(dependencies)
        let vault = try await NotesCommand.unlock(global, passcode, dependencies, json: json)
        defer { vault.close() }
        // --restore changes the note with nobody asked first: only a whole title or an 8-character id.
        let noteID = try await NoteIDArgument.resolve(
            id, in: vault, naming: restore == nil ? .reading : .unattended("--restore"), person: .atTerminal(dependencies, json: json))
        if let number = show {
            let note = try vault.revision(number, of: noteID)
            if let clipboard { return try clip.copy(note, to: clipboard, vault: vault, dependencies: dependencies) }
            if let line = clip.line { return try ClipOptions.print(note, line: line, dependencies: dependencies) }
            if json { return try console.printJSON(note) }
            var text = console.bold(note.title.isEmpty ? "(untitled)" : TerminalSafeText.line(note.title)) + "\n"
            text +=
                console.dim(
                    "revision \(number) of \(note.id.uuidString.lowercased()) · modified \(ISO8601DateFormatter().string(from: note.modified))")
                + "\n\n"
            let body = console.out.isTerminal ? TerminalSafeText.body(note.body) : note.body
            text += body.hasSuffix("\n") || body.isEmpty ? body : body + "\n"
            Pager.write(text, environment: dependencies.environment, console: console)
            return
        }
        if let number = restore {
            let saved = try vault.restoreRevision(number, of: noteID)
            if json { return try console.printJSON(saved.summary) }
            console.print("Restored revision \(number) of \(NotesCommand.shortID(saved.id)): \(TerminalSafeText.line(saved.title))")
            return
        }
        let history = try vault.history(of: noteID)
        if json { return try console.printJSON(history) }
        console.print("\(NotesCommand.shortID(noteID))  current revision \(history.current)")
        if history.revisions.isEmpty {
            console.print("No earlier revision is kept.")
            return
        }
        let formatter = ISO8601DateFormatter()
        // Columns aligned: the sizes right-aligned to the widest.
        let sizeWidth = history.revisions.map { String($0.size).count }.max() ?? 1
        for revision in history.revisions {
            let size = String(revision.size)
            console.print(
                "\(String(revision.number).padding(toLength: 4, withPad: " ", startingAt: 0))  "
                    + "\(formatter.string(from: revision.modified))  \(String(repeating: " ", count: sizeWidth - size.count))\(size) B  "
                    + (revision.title.isEmpty ? "(untitled)" : TerminalSafeText.line(revision.title)))
        }
    }
}
