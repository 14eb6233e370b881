import ArgumentParser
import Auth
import Foundation
import Vault

struct NotesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notes",
        abstract: "Add, list, show, edit, remove and search notes (unlocked by a touch, else the passcode).",
        subcommands: [
            Add.self, List.self, Show.self, Edit.self, Remove.self, Search.self, Tags.self, ImportCommand.self,
            NotesTrashCommand.self, NotesHistoryCommand.self,
        ])

    /// Unlocks for a notes command: the finger first, then the passcode. `titlesOnly`: the command
    /// shows titles and tags only, which need no touch while the key is cached (`openTitles`).
    static func unlock(
        _ global: GlobalOptions, _ passcode: PasscodeOptions, _ dependencies: CLIDependencies, json: Bool = false,
        titlesOnly: Bool = false
    ) async throws -> Vault {
        let session = try await AuthSession(global: global, passcode: passcode, dependencies: dependencies, json: json)
        let vault = try await titlesOnly ? session.context.openTitles() : session.context.openNotes()
        do {
            // How many revisions and how long the trash keeps: the user's sealed settings.
            vault.retention = try SecuritySettings(vault: vault).noteRetention
        } catch {
            vault.close()
            throw error
        }
        return vault
    }

    /// Whether the body is piped in (a pipe, socket or file; never a terminal or a device such as
    /// `/dev/null`); a piped body cannot share stdin with `--passcode-stdin`.
    static func bodyComesFromStdin(_ dependencies: CLIDependencies, _ passcode: PasscodeOptions) throws -> Bool {
        let piped = StandardInputKind(dependencies.input).carriesBody
        if piped, passcodeUsesStdin(passcode) {
            throw CLIError(.usage, "The passcode cannot share stdin with the note body: use --passcode-fd N with another descriptor.")
        }
        return piped
    }

    static func passcodeUsesStdin(_ passcode: PasscodeOptions) -> Bool {
        passcode.descriptor.map(PasscodeOptions.isStandardInput) ?? false
    }

    static func readBody(_ dependencies: CLIDependencies) throws -> String {
        guard let text = String(data: try dependencies.input.readAll(), encoding: .utf8) else {
            throw CLIError(.usage, "The note body on stdin is not UTF-8 text.")
        }
        return text
    }

    /// `#a and #b`, escaped for the terminal.
    static func tagList(_ tags: [String]) -> String {
        tags.map { "#" + TerminalSafeText.line($0) }.joined(separator: " and ")
    }

    /// The first 8 hex digits of an id, as listings show it: from the id's bytes, without building
    /// the whole UUID string (a listing of 100k notes would build 100k of them).
    static func shortID(_ id: UUID) -> String {
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        let bytes = id.uuid
        return String(unsafeUninitializedCapacity: 8) { buffer in
            for (index, byte) in [bytes.0, bytes.1, bytes.2, bytes.3].enumerated() {
                buffer[2 * index] = digits[Int(byte >> 4)]
                buffer[2 * index + 1] = digits[Int(byte & 0xF)]
            }
            return 8
        }
    }

    /// A listing: JSON, or a line per note (id, day, title, tags) with `highlight` marked in titles
    /// and tags where the console uses colour. On a terminal it goes through the pager when longer
    /// than the screen; elsewhere it streams.
    /// `snippets` (a search's text around a body's hit) end their notes' lines after ` — `, the
    /// search terms highlighted there too.
    static func printSummaries(
        _ summaries: consuming [NoteSummary], json: Bool, highlight: [String] = [], snippets: [UUID: String] = [:],
        dependencies: CLIDependencies
    ) throws {
        let console = dependencies.console
        if json {
            try console.printJSON(summaries)
            return
        }
        let query = console.useColor ? highlight : []
        if query.isEmpty && snippets.isEmpty {
            let lines = SummaryLines(useColor: console.useColor)
            if console.out.isTerminal {
                // Whole, so that its length decides whether it is paged.
                var text: [UInt8] = []
                lines.render(consume summaries) { text.append(contentsOf: $0) }
                Pager.write(String(decoding: text, as: UTF8.self), environment: dependencies.environment, console: console)
            } else {
                lines.render(consume summaries) { console.out.write($0) }
            }
            return
        }
        // Matches marked in colour, which is only ever on a terminal: made with the console's
        // string helpers, whole, so that its length decides whether it is paged.
        func styled(_ text: String, _ rest: (String) -> String) -> String {
            MatchHighlight.apply(text, queries: query, mark: console.match, rest: rest)
        }
        var day: (number: Double, text: String) = (.nan, "")
        var text = ""
        for note in summaries {
            text += console.bold(shortID(note.id))
            text += "  "
            let number = (note.modified.timeIntervalSince1970 / 86_400).rounded(.down)
            if number != day.number { day = (number, UTCDay.string(note.modified)) }
            text += day.text
            text += "  "
            text += note.title.isEmpty ? "(untitled)" : styled(TerminalSafeText.line(note.title)) { $0 }
            if !note.tags.isEmpty {
                text += "  "
                for (index, tag) in note.tags.enumerated() {
                    if index > 0 { text += console.dim(" ") }
                    text += styled("#" + TerminalSafeText.line(tag), console.dim)
                }
            }
            if let snippet = snippets[note.id] {
                text += console.dim("  — ") + styled(TerminalSafeText.line(snippet), console.dim)
            }
            text += "\n"
        }
        Pager.write(text, environment: dependencies.environment, console: console)
    }

    struct Add: FingerlockCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add a note: the body from $VISUAL/$EDITOR, or from stdin when it is piped.",
            discussion: """
                --title and --tag are visible in your shell history; the body never comes from the command line. \
                In the editor the first line `Tags: a, b` holds the tags. Without --title, a piped body's first \
                `# Heading` is the title (and leaves the body). Without $VISUAL/$EDITOR: editor, vi or nano.
                """,
            // gopass's word for it.
            aliases: ["new"])

        @OptionGroup var global: GlobalOptions
        @OptionGroup var passcode: PasscodeOptions
        @Option(name: .long, help: "The title (visible in shell history; default: the body's first line).") var title: String?
        @Option(name: .long, help: "A tag (repeatable; a leading # is dropped; visible in shell history).") var tag: [String] = []

        func validate() throws { _ = try TagArgument.normalized(tag) }

        func run(with dependencies: CLIDependencies) async throws {
            var tags = try TagArgument.normalized(tag)
            // A piped body is read first, so an empty note is refused before any passcode is asked.
            // A device such as /dev/null holds no body and is never read: the note is its title alone.
            let stdinBody: String? =
                if try NotesCommand.bodyComesFromStdin(dependencies, passcode) {
                    try NotesCommand.readBody(dependencies)
                } else {
                    StandardInputKind(dependencies.input) == .device ? "" : nil
                }
            if let stdinBody, stdinBody.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty && (title ?? "").isEmpty {
                throw CLIError(.cancelled, "The note is empty; nothing was saved.")
            }
            // No body on stdin: the editor is needed, so check it can run before any touch or passcode.
            let editor = SecureEditor(environment: dependencies.environment, console: dependencies.console)
            let terminal = stdinBody == nil ? dependencies.openTerminal() : nil
            if stdinBody == nil {
                _ = try editor.preflight(terminal: terminal, noTerminal: "Pipe the note body on stdin, or run in a terminal with $EDITOR set.")
            }
            let vault = try await NotesCommand.unlock(global, passcode, dependencies)
            defer { vault.close() }
            var noteTitle: String
            var body: String
            if let stdinBody {
                if let title {
                    (noteTitle, body) = (title, stdinBody)
                } else {
                    (noteTitle, body) = EditableNote.titleAndBody(piped: stdinBody)
                }
            } else if let terminal {
                let edited = try editor.edit(EditableNote.render(title: title ?? "", tags: tags, body: ""), terminal: terminal)
                let parsed = EditableNote.parse(edited)
                (noteTitle, body) = (parsed.title, parsed.body)
                tags = parsed.tags ?? tags
                if let title { noteTitle = noteTitle.isEmpty ? title : noteTitle }
            } else {
                throw CLIError(.usage, "Pipe the note body on stdin, or run in a terminal with $EDITOR set.")
            }
            guard !body.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty || !noteTitle.isEmpty else {
                throw CLIError(.cancelled, "The note is empty; nothing was saved.")
            }
            let note = try vault.add(title: noteTitle, body: body, tags: tags)
            dependencies.console.print("Added \(String(note.id.uuidString.lowercased().prefix(8))): \(TerminalSafeText.line(note.title))")
        }
    }

    struct List: FingerlockCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List notes: id, date, title, tags (newest first).",
            discussion: """
                FOLDER lists the notes whose titles start with FOLDER/ (a / in a title is a folder, as in pass); \
                --tree draws them as a tree. On a terminal, a list longer than the screen goes through $PAGER \
                (default `less -FRX`); never when piped.
                """,
            // pass and gopass users type `ls`.
            aliases: ["ls"])

        @OptionGroup var global: GlobalOptions
        @OptionGroup var passcode: PasscodeOptions
        @Argument(
            help: ArgumentHelp("Only the notes in this folder: titles that start with FOLDER/ (as pass ls FOLDER).", valueName: "folder"))
        var folder: String?
        @OptionGroup var query: NoteQueryOptions
        @Flag(name: .long, help: "Draw the titles as a tree of folders (a / in a title is a folder), as pass ls does.") var tree = false
        @Flag(name: .long, help: "Print a JSON array of {id, title, tags, created, modified}.") var json = false
        var jsonOutput: Bool { json }

        func validate() throws {
            if tree && json { throw ValidationError("--tree draws the titles and --json lists the notes: choose one.") }
            if let folder, folder.contains(where: \.isNewline) { throw ValidationError("A folder is one line.") }
        }

        var request: ListRequest {
            ListRequest(
                global: global.settings, passcodeDescriptor: passcode.descriptor, query: query.query, json: json,
                folder: folder.map(NoteFolder.init), tree: tree)
        }

        func run(with dependencies: CLIDependencies) async throws { try await request.run(with: dependencies) }
    }

    struct Show: FingerlockCommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "Show a note, named by its id (or a start of it) or its title.",
            discussion: """
                --body prints the body alone, byte for byte as stored (no header, no newline added), for \
                scripts: `fingerlock notes show ID --body > file`. On a terminal its control characters are \
                shown escaped, as always, and a note longer than the screen goes through $PAGER (default \
                `less -FRX`, which runs with LESSSECURE=1 and no history file, so it cannot save the note); \
                never when piped.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var passcode: PasscodeOptions
        @Argument(help: ArgumentHelp(NoteIDArgument.help, valueName: "id-or-title"), completion: NoteIDArgument.completion)
        var id: String
        @OptionGroup var clip: ClipOptions
        @Flag(name: .customLong("body"), help: "Print only the body, exactly as stored.") var bodyOnly = false
        @Flag(name: .long, help: "Print a JSON object {id, title, tags, created, modified, body}.") var json = false
        var jsonOutput: Bool { json }

        func validate() throws {
            try NoteIDArgument.validate(id)
            if bodyOnly && json { throw ValidationError("--body and --json print the note in two different ways: choose one.") }
            if clip.copies && (bodyOnly || json) {
                throw ValidationError("--clip copies the note instead of printing it: leave out --body and --json.")
            }
            if clip.line != nil && (bodyOnly || json) {
                throw ValidationError("--line prints one line of the body: leave out --body and --json.")
            }
        }

        func run(with dependencies: CLIDependencies) async throws {
            let clipboard = try clip.clipboard(dependencies)
            let vault = try await NotesCommand.unlock(global, passcode, dependencies, json: json)
            defer { vault.close() }
            let note = try vault.note(
                id: try await NoteIDArgument.resolve(id, in: vault, person: .atTerminal(dependencies, json: json)))
            if let clipboard { return try clip.copy(note, to: clipboard, vault: vault, dependencies: dependencies) }
            if let line = clip.line { return try ClipOptions.print(note, line: line, dependencies: dependencies) }
            let console = dependencies.console
            if json {
                try console.printJSON(note)
                return
            }
            if bodyOnly {
                console.out.write(console.out.isTerminal ? TerminalSafeText.body(note.body) : note.body)
                return
            }
            var text = console.bold(note.title.isEmpty ? "(untitled)" : TerminalSafeText.line(note.title)) + "\n"
            let formatter = ISO8601DateFormatter()
            var meta = "id \(note.id.uuidString.lowercased()) · modified \(formatter.string(from: note.modified))"
            if !note.tags.isEmpty { meta += " · " + note.tags.map { "#" + TerminalSafeText.line($0) }.joined(separator: " ") }
            text += console.dim(meta) + "\n\n"
            // The body is the user's own text: exact when redirected (`show ID > file` keeps it as
            // written), but at a terminal its control characters are shown, not obeyed.
            let body = console.out.isTerminal ? TerminalSafeText.body(note.body) : note.body
            text += body.hasSuffix("\n") || body.isEmpty ? body : body + "\n"
            Pager.write(text, environment: dependencies.environment, console: console)
        }
    }

    struct Edit: FingerlockCommand {
        static let configuration = CommandConfiguration(
            commandName: "edit",
            abstract: "Edit a note in $VISUAL/$EDITOR (on tmpfs only), or replace its body from stdin.",
            discussion: """
                In the editor, the first line `Tags: a, b` holds the tags and the line `# Title` after it the \
                title. --title, --tag (replacing all tags), --add-tag and \
                --remove-tag (one tag each, repeatable) are visible in shell history; given alone they change \
                only the title or tags, with no editor. Removing a tag the note does not have changes nothing \
                and exits 5. Only a non-empty body piped or redirected from a file replaces the body.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var passcode: PasscodeOptions
        @Argument(help: ArgumentHelp(NoteIDArgument.help, valueName: "id-or-title"), completion: NoteIDArgument.completion)
        var id: String
        @Option(name: .long, help: "A new title.") var title: String?
        @Option(name: .long, help: "Replace the tags (repeatable).") var tag: [String] = []
        @Option(name: .customLong("add-tag"), help: "Add this tag, keeping the others (repeatable).") var addTag: [String] = []
        @Option(name: .customLong("remove-tag"), help: "Remove this tag, keeping the others (repeatable).") var removeTag: [String] = []

        func validate() throws {
            try NoteIDArgument.validate(id)
            _ = try TagArgument.normalized(tag)
            let edit = try TagEdit(adding: addTag, removing: removeTag)
            if !tag.isEmpty && !edit.isEmpty {
                throw ValidationError("--tag replaces every tag: use it, or --add-tag/--remove-tag, not both.")
            }
        }

        func run(with dependencies: CLIDependencies) async throws {
            let tags = try TagArgument.normalized(tag)
            let tagEdit = try TagEdit(adding: addTag, removing: removeTag)
            let changesDetails = title != nil || !tags.isEmpty || !tagEdit.isEmpty
            // Only a piped body replaces the body, and an empty one is no body: a script changing
            // the title with stdin at /dev/null or an empty pipe must not wipe the note. With the
            // passcode on stdin, stdin holds no body either.
            let kind = StandardInputKind(dependencies.input)
            let passcodeOnStdin = NotesCommand.passcodeUsesStdin(passcode)
            if kind.carriesBody && passcodeOnStdin && !changesDetails {
                throw CLIError(.usage, "The passcode cannot share stdin with the note body: use --passcode-fd N with another descriptor.")
            }
            var newBody: String?
            if kind.carriesBody && !passcodeOnStdin {
                let text = try NotesCommand.readBody(dependencies)
                if !text.isEmpty {
                    newBody = text
                } else if !changesDetails {
                    throw CLIError(.cancelled, "The body on stdin is empty; nothing was changed.")
                }
            }
            // The editor is needed: check it can run before any touch or passcode.
            let editor = SecureEditor(environment: dependencies.environment, console: dependencies.console)
            let needsEditor = newBody == nil && !changesDetails
            let terminal = needsEditor ? dependencies.openTerminal() : nil
            if needsEditor {
                _ = try editor.preflight(terminal: terminal, noTerminal: "Pipe the new body on stdin, or run in a terminal with $EDITOR set.")
            }
            let vault = try await NotesCommand.unlock(global, passcode, dependencies)
            defer { vault.close() }
            // Without the editor nobody sees the note before it changes: only a whole title or an 8-character id.
            let naming: NoteNaming = needsEditor ? .changing : .unattended("an edit without the editor")
            let noteID = try await NoteIDArgument.resolve(id, in: vault, naming: naming, person: .atTerminal(dependencies))
            var editing: (from: Note, to: (title: String, body: String))?
            // Tags changed on the editor's `Tags:` line, else nil (tags changed meanwhile elsewhere stay).
            var editedTags: [String]?
            if needsEditor, let terminal {
                let note = try vault.note(id: noteID)
                let original = EditableNote.render(title: note.title, tags: note.tags, body: note.body)
                let edited = try editor.edit(original, terminal: terminal)
                if edited == original {
                    dependencies.console.print("No changes.")
                    return
                }
                let (title, body, tags) = EditableNote.parse(edited)
                guard !body.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty || !title.isEmpty else {
                    throw CLIError(.cancelled, "The note is empty; nothing was saved.")
                }
                editing = (note, (title, body))
                if let tags, tags != note.tags { editedTags = tags }
            }
            // Applied to the note as stored at the moment of saving, in the same transaction: another
            // fingerlock's change made since (a tag added, say) is kept, not overwritten.
            let saved: Note?
            do {
                saved = try vault.update(id: noteID) { (note: inout Note) throws in
                    if let editing {
                        // The editor started from this title and body: if another process changed
                        // either since, neither version may silently replace the other.
                        guard note.title == editing.from.title, note.body == editing.from.body else {
                            throw ChangedWhileEditing()
                        }
                        (note.title, note.body) = editing.to
                    }
                    if let editedTags { note.tags = editedTags }
                    if let newBody { note.body = newBody }
                    if let title { note.title = title }
                    if !tags.isEmpty { note.tags = tags }
                    note.tags = try tagEdit.applied(to: note.tags)
                }
            } catch let error where editing != nil && (error is ChangedWhileEditing || (error as? VaultError)?.code == .notFound) {
                // What was typed in the editor is never lost: it becomes a note of its own.
                let editing = editing!
                let copy = try vault.add(title: editing.to.title, body: editing.to.body, tags: editedTags ?? editing.from.tags)
                let what = error is ChangedWhileEditing ? "changed" : "was deleted"
                dependencies.console.print(
                    "The note \(what) while you were editing it (another fingerlock saved first); your version was "
                        + "saved as a new note \(String(copy.id.uuidString.lowercased().prefix(8))): \(TerminalSafeText.line(copy.title))")
                return
            }
            // Nothing to save (adding a tag the note has already): `modified` stays.
            guard let saved else {
                dependencies.console.print("No changes.")
                return
            }
            dependencies.console.print("Saved \(String(saved.id.uuidString.lowercased().prefix(8))): \(TerminalSafeText.line(saved.title))")
        }

        /// The note was saved by another process while this one's editor was open.
        struct ChangedWhileEditing: Error {}
    }
}
