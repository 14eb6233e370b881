import ArgumentParser
import Auth
import Vault

/// `notes show ID --clip [--line N]`: the body (or one line of it) to the clipboard, like `pass -c`,
/// never to the terminal; cleared after the sealed `clip-clear` setting unless it changed meanwhile.
struct ClipOptions: ParsableArguments {
    @Flag(
        name: .long,
        help: "Copy the body to the clipboard instead of printing it (wl-copy, xclip or xsel); cleared after clip-clear (45s).")
    var clip = false

    @Option(name: .long, help: ArgumentHelp("With --clip: copy only this line of the body (from 1).", valueName: "n"))
    var line: Int?

    func validate() throws {
        if line != nil && !clip { throw ValidationError("--line goes with --clip.") }
        if let line, line < 1 { throw ValidationError("--line counts from 1.") }
    }

    /// The clipboard to use, found before any touch or passcode is asked for; nil without --clip.
    func clipboard(_ dependencies: CLIDependencies) throws -> Clipboard? {
        clip ? try Clipboard.find(environment: dependencies.environment) : nil
    }

    /// Copies the note's body (or line) and starts the clearer; prints what was copied, never the text.
    func copy(_ note: Note, to clipboard: Clipboard, vault: Vault, dependencies: CLIDependencies) throws {
        var text = Array(try Self.selection(of: note.body, line: line).utf8)
        defer { text.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) } }
        let delay = try SecuritySettings(vault: vault).clipClear
        let runner = dependencies.childProcesses
        try clipboard.copy(text, runner: runner)
        try clipboard.scheduleClearing(of: text, after: delay, runner: runner)
        let what = line.map { "Line \($0) of" } ?? "The body of"
        let title = note.title.isEmpty ? "(untitled)" : TerminalSafeText.line(note.title)
        dependencies.console.print("\(what) \"\(title)\" is on the clipboard; it is cleared in \(SecuritySettings.format(delay)).")
    }

    /// The body without its final line break, or its line `line` (1-based) without the break.
    static func selection(of body: String, line: Int?) throws -> String {
        guard let line else {
            let text = body.hasSuffix("\r\n") ? String(body.dropLast(2)) : body.hasSuffix("\n") ? String(body.dropLast()) : body
            guard !text.isEmpty else { throw CLIError(.usage, "The note's body is empty; nothing was copied.") }
            return text
        }
        var lines = body.split(separator: "\n", omittingEmptySubsequences: false)
        if body.hasSuffix("\n") { lines.removeLast() }
        guard line <= lines.count else {
            throw CLIError(.usage, "--line \(line): the body has \(lines.count) \(lines.count == 1 ? "line" : "lines"); nothing was copied.")
        }
        let selected = lines[line - 1]
        return String(selected.hasSuffix("\r") ? selected.dropLast() : selected)
    }
}
