import ArgumentParser
import Foundation
import SafeFiles
import Vault

struct ExportCommand: FingerlockCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write every note in plaintext to stdout or a new file, after an explicit confirmation.",
        discussion: """
            --output FILE creates FILE with mode 0600 (an existing FILE only with --force). markdown-dir writes \
            a new directory (mode 0700) of one .md file per note, its id, title, tags and dates in a front-matter \
            block: `fingerlock notes import --format markdown-dir DIR` reads it back.
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case json, markdown
        case markdownDirectory = "markdown-dir"
    }

    @OptionGroup var global: GlobalOptions
    @OptionGroup var passcode: PasscodeOptions
    @Option(name: .long, help: "json, markdown or markdown-dir.") var format: Format = .json
    @Option(
        name: .long, help: ArgumentHelp("Write to this new file (0600), or for markdown-dir this new directory, not stdout.", valueName: "path"),
        completion: .file())
    var output: String?
    @Flag(name: .long, help: "With --output FILE: replace FILE if it exists.") var force = false
    @Flag(name: .customLong("yes-plaintext"), help: "Confirm that the notes leave the vault unencrypted.") var yesPlaintext = false

    func validate() throws {
        if format == .markdownDirectory && output == nil { throw ValidationError("markdown-dir needs --output DIR, a new directory.") }
        if force && output == nil { throw ValidationError("--force goes with --output FILE (it replaces FILE).") }
        if force && format == .markdownDirectory {
            throw ValidationError("markdown-dir writes a new directory only; remove the old one first (--force replaces files).")
        }
    }

    func run(with dependencies: CLIDependencies) async throws {
        // Before the confirmation and the unlock: an export that cannot be written should ask for neither.
        if let output, !force, let problem = NewPrivateFile.problem(at: output) { throw problem }
        if !yesPlaintext {
            let confirmed = try await Confirmation.ask(
                "This writes all your notes UNENCRYPTED to \(output ?? "stdout"). Continue?", terminal: dependencies.openTerminal(),
                unlessFlag: "--yes-plaintext")
            guard confirmed else { throw CLIError(.cancelled, "Nothing was exported.") }
        }
        let vault = try await NotesCommand.unlock(global, passcode, dependencies)
        defer { vault.close() }
        let text: String
        let bar = ProgressReporter("Exporting", total: try vault.noteCount(), console: dependencies.console)
        defer { bar.finish() }
        switch format {
        case .json: text = String(decoding: try vault.exportJSON(progress: bar.callback), as: UTF8.self) + "\n"
        case .markdown: text = try vault.exportMarkdown(progress: bar.callback)
        case .markdownDirectory:
            let notes = try vault.allNotes()
            try MarkdownDirectoryExport.write(notes, to: output!)
            dependencies.console.print("Exported \(notes.count) \(notes.count == 1 ? "note" : "notes") to \(output!).")
            return
        }
        if let output {
            // Written whole or not at all: a new file removed on failure, a replaced one swapped in at once.
            if force {
                try AtomicFile.write(Array(text.utf8), to: output)
            } else {
                try NewPrivateFile.write(Array(text.utf8), to: output)
            }
            return
        }
        // All or nothing: the export is made whole first, and a file it fails to fill (a full disk)
        // is cut back to what it held before, so no truncated export is left looking complete.
        let out = dependencies.console.out
        let start = out.regularFileOffset
        do {
            try out.writeChecked(text)
        } catch {
            if let start { out.truncate(to: start) }
            throw CLIError(error.status, error.message + " Nothing was exported.")
        }
    }
}
