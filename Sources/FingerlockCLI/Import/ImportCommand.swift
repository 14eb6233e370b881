import ArgumentParser
import Foundation
import Vault

#if canImport(Glibc)
    import Glibc
#endif

/// `notes import`: notes from fingerlock's own JSON export, a Markdown directory, jrnl or pass, in
/// one vault transaction (all or nothing).
struct ImportCommand: FingerlockCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import notes from an export, a Markdown directory, jrnl or pass, all or nothing.",
        discussion: """
            json (also fingerlock-json): `fingerlock export --format json`, with its ids, dates and tags (a taken id \
            is refused unless --skip-existing). markdown-dir: .md, .markdown and .txt files, one note each (title: \
            the first line's heading, else the file name; a front-matter block as `export --format markdown-dir` \
            writes gives id, title, tags and dates). jrnl-json: `jrnl --export json` (times read in $TZ; `@` dropped \
            from tags; starred entries tagged `starred`). pass: every entry of the password store (PATH, else \
            $PASSWORD_STORE_DIR, else ~/.password-store) decrypted by `pass show` in memory; the entry's path is \
            the title, its folders the tags. Importing pass again matches entries to notes by title: a new entry \
            is added, a changed one updates its note (the vault's version stays in the note's history), an \
            unchanged one is skipped; a title that several notes share stops the import. --dry-run counts new, \
            changed and unchanged first. Without --format the format is detected (a directory with .gpg-id: \
            pass; with note files: markdown-dir; a JSON array: json; an object with entries: jrnl-json) and named \
            on stderr. JSON comes from PATH or, without it, from stdin. Everything is \
            read and checked before the vault is unlocked, and written in one transaction: any error imports \
            nothing. A note holds at most 16 MiB and an import at most 256 MiB; symbolic links in a directory \
            and dates that do not exist are refused.
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var passcode: PasscodeOptions
    @Option(name: .long, help: "json, markdown-dir, jrnl-json or pass (default: detected from PATH or stdin).") var format: ImportFormat?
    @Argument(
        help: ArgumentHelp("The JSON file (default: stdin), the directory, or the password store.", valueName: "path"),
        completion: .file())
    var path: String?
    @Flag(name: .customLong("dry-run"), help: "Read and check everything, list what would be imported, write nothing.")
    var dryRun = false
    @Flag(name: .customLong("skip-existing"), help: "json, markdown-dir: leave out notes whose id the vault already has.")
    var skipExisting = false

    func validate() throws {
        if format == .markdownDirectory && path == nil { throw ValidationError("markdown-dir needs the directory to read.") }
        if skipExisting && (format == .jrnlJSON || format == .pass) {
            throw ValidationError("--skip-existing goes with --format json or markdown-dir (other formats bring no ids).")
        }
    }

    func run(with dependencies: CLIDependencies) async throws {
        // Read and check everything first: a bad input is refused before any touch or passcode.
        let (read, ignored, format) = try read(dependencies)
        var notes = read
        let console = dependencies.console
        let others = ignored > 0 ? " (\(ignored) other \(ignored == 1 ? "file" : "files") ignored)" : ""
        if notes.isEmpty {
            console.print("Nothing to import\(others).")
            return
        }
        let vault = try await NotesCommand.unlock(global, passcode, dependencies)
        defer { vault.close() }
        // A pass store's entries have stable names (their paths): importing it again updates.
        if format == .pass { return try importAgain(notes, into: vault, console: console) }
        let taken = try vault.existingNoteIDs(among: notes.map(\.id))
        if !taken.isEmpty {
            guard skipExisting else {
                let first = notes.first { taken.contains($0.id) }!.id.uuidString.lowercased()
                throw CLIError(
                    .usage,
                    "\(Self.notes(taken.count)) of the import \(taken.count == 1 ? "is" : "are") already in the vault (id \(first)\(taken.count > 1 ? ", …" : "")); nothing was imported. --skip-existing imports the others."
                )
            }
            notes.removeAll { taken.contains($0.id) }
        }
        let skipped = (taken.isEmpty ? "" : " (\(taken.count) already in the vault, skipped)") + others
        if dryRun {
            for note in notes {
                let tags = note.tags.isEmpty ? "" : "  " + note.tags.map { "#" + TerminalSafeText.line($0) }.joined(separator: " ")
                console.print("\(note.title.isEmpty ? "(untitled)" : TerminalSafeText.line(note.title))\(tags)")
            }
            console.print("Would import \(Self.notes(notes.count))\(skipped); dry run, nothing was written.")
            return
        }
        if !notes.isEmpty {
            let bar = ProgressReporter("Importing", total: notes.count, console: console)
            defer { bar.finish() }
            try vault.add(notes, progress: bar.callback)
        }
        console.print("Imported \(Self.notes(notes.count))\(skipped).")
    }

    /// A source whose notes have stable titles, into a vault that may hold an earlier import of it.
    private func importAgain(_ notes: [Note], into vault: Vault, console: Console) throws {
        let plan = try ImportPlan(matchingTitlesOf: notes, in: vault)
        if dryRun {
            for note in plan.new { console.print("new      " + Self.line(note)) }
            for (_, note) in plan.changed { console.print("changed  " + Self.line(note)) }
            console.print("Would import \(plan.summary); dry run, nothing was written.")
            return
        }
        if !plan.new.isEmpty || !plan.changed.isEmpty {
            let bar = ProgressReporter("Importing", total: plan.new.count + plan.changed.count, console: console)
            defer { bar.finish() }
            try vault.importNotes(adding: plan.new, replacing: plan.changed, progress: bar.callback)
        }
        let kept = plan.changed.isEmpty ? "" : " (the vault's versions of the changed ones are in their history)"
        console.print(plan.new.isEmpty && plan.changed.isEmpty ? "Nothing to import: \(plan.summary)." : "Imported \(plan.summary)\(kept).")
    }

    /// A note as a dry run lists it: its title and tags.
    private static func line(_ note: Note) -> String {
        let tags = note.tags.isEmpty ? "" : "  " + note.tags.map { "#" + TerminalSafeText.line($0) }.joined(separator: " ")
        return (note.title.isEmpty ? "(untitled)" : TerminalSafeText.line(note.title)) + tags
    }

    /// The notes the input holds, how many files of a directory were left out, and the format.
    private func read(_ dependencies: CLIDependencies) throws -> ([Note], Int, ImportFormat) {
        var format = self.format
        var read: Data?
        if format == nil {
            if let path, path != "-", let found = try ImportFormatDetection.directoryFormat(path) {
                format = found
            } else {
                if path == nil && !StandardInputKind(dependencies.input).carriesBody {
                    throw CLIError(
                        .usage, "Give the file or directory to import, or pipe JSON on stdin (a password store in its usual place: --format pass).")
                }
                let data = try json(dependencies)
                format = try ImportFormatDetection.jsonFormat(data, source: path ?? "stdin")
                read = data
            }
            dependencies.console.warn("reading \(path ?? "stdin") as --format \(format!.rawValue) (detected; --format chooses another).")
        }
        switch format! {
        case .fingerlockJSON:
            return (try FingerlockJSONImport.notes(from: try read ?? json(dependencies)), 0, .fingerlockJSON)
        case .jrnlJSON:
            let zone = dependencies.environment["TZ"].flatMap { TimeZone(identifier: $0.hasPrefix(":") ? String($0.dropFirst()) : $0) }
            return (try JrnlJSONImport.notes(from: try read ?? json(dependencies), timeZone: zone ?? .current), 0, .jrnlJSON)
        case .markdownDirectory:
            let found = try MarkdownDirectoryImport.notes(in: path ?? ".")
            return (found.notes, found.ignored, .markdownDirectory)
        case .pass:
            let store = try PassStoreImport(path: path, environment: dependencies.environment, runner: dependencies.childProcesses)
            return (try store.notes(), 0, .pass)
        }
    }

    /// The JSON text: from PATH, or piped on stdin (which the passcode then cannot share).
    private func json(_ dependencies: CLIDependencies) throws -> Data {
        if let path, path != "-" {
            // Followed if a link: the user named this file (it may be a pipe, `<(jrnl --export json)`).
            let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)
            guard fd >= 0 else {
                throw CLIError(errno == ENOENT ? .notFound : .dataError, "Cannot read \(path): \(String(cString: strerror(errno))).")
            }
            defer { close(fd) }
            let outcome: BoundedRead.Outcome
            do {
                outcome = try BoundedRead.bytes(from: fd, limit: ImportLimits.inputBytes)
            } catch {
                throw CLIError(.dataError, "Cannot read \(path): \(error.reason).")
            }
            guard case .complete(let bytes) = outcome else { throw ImportLimits.inputTooLarge("\(path) holds") }
            return Data(bytes)
        }
        guard StandardInputKind(dependencies.input).carriesBody else {
            throw CLIError(.usage, "Give the JSON file to import, or pipe it on stdin.")
        }
        if NotesCommand.passcodeUsesStdin(passcode) {
            throw CLIError(.usage, "The passcode cannot share stdin with the import: use --passcode-fd N with another descriptor.")
        }
        guard let data = try dependencies.input.readAll(limit: ImportLimits.inputBytes) else { throw ImportLimits.inputTooLarge("stdin holds") }
        return data
    }

    private static func notes(_ count: Int) -> String { "\(count) \(count == 1 ? "note" : "notes")" }
}
