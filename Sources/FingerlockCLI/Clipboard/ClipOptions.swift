import ArgumentParser
import Auth
import Vault

/// `notes show NOTE --clip` (and `pick`): like `pass -c`, the body's first line to the clipboard,
/// never to the terminal; `--clip-all` the whole body, `--line N` line N, which without a clipboard
/// is printed instead. The clipboard is cleared after the sealed `clip-clear` setting unless it
/// changed meanwhile.
struct ClipOptions: ParsableArguments {
    @Flag(
        name: [.customShort("c"), .long],
        help:
            "Copy the body's first line to the clipboard instead of printing it, like pass -c (wl-copy, xclip or xsel); cleared after clip-clear (45s)."
    )
    var clip = false

    @Flag(name: .customLong("clip-all"), help: "Copy the whole body to the clipboard instead of the first line.")
    var clipAll = false

    @Option(
        name: .long, help: ArgumentHelp("Only this line of the body (from 1): copied with --clip, else printed.", valueName: "n"))
    var line: Int?

    @OptionGroup var route: ClipboardChoice

    func validate() throws {
        if clip && clipAll { throw ValidationError("--clip copies the first line and --clip-all the whole body: choose one.") }
        if line != nil && clipAll { throw ValidationError("--clip-all copies the whole body: leave out --line, or use --clip --line N.") }
        if let line, line < 1 { throw ValidationError("--line counts from 1.") }
        try route.validate(copying: copies)
    }

    /// Whether the note goes to the clipboard.
    var copies: Bool { clip || clipAll }

    /// The line to take (nil: the whole body): with --clip the first unless --line says otherwise.
    var selectedLine: Int? { clipAll ? nil : line ?? (clip ? 1 : nil) }

    /// The clipboard to use, found before any touch or passcode is asked for; nil unless copying.
    func clipboard(_ dependencies: CLIDependencies) throws -> Clipboard? {
        copies ? try route.clipboard(dependencies) : nil
    }

    /// Copies the note's body (or line) and starts the clearer; prints what was copied, never the text.
    func copy(_ note: Note, to clipboard: Clipboard, vault: Vault, dependencies: CLIDependencies) throws {
        try Self.copy(note, line: selectedLine, to: clipboard, vault: vault, dependencies: dependencies)
    }

    static func copy(_ note: Note, line: Int?, to clipboard: Clipboard, vault: Vault, dependencies: CLIDependencies) throws {
        let delay = try copy(try selection(of: note.body, line: line), to: clipboard, vault: vault, dependencies: dependencies)
        let what = line.map { "Line \($0) of" } ?? "The body of"
        let title = note.title.isEmpty ? "(untitled)" : TerminalSafeText.line(note.title)
        dependencies.console.print("\(what) \"\(title)\" is on \(clipboard.name); it is cleared in \(SecuritySettings.format(delay)).")
    }

    /// Copies `text` (a line of a note, a code, a new password) and starts the clearer for the
    /// vault's `clip-clear`; returns that delay. Our copy of the bytes is wiped afterwards.
    static func copy(_ text: String, to clipboard: Clipboard, vault: Vault, dependencies: CLIDependencies) throws -> Duration {
        var bytes = Array(text.utf8)
        defer { bytes.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) } }
        let delay = try SecuritySettings(vault: vault).clipClear
        let runner = dependencies.childProcesses
        try clipboard.copy(bytes, runner: runner)
        try clipboard.scheduleClearing(of: bytes, after: delay, runner: runner)
        return delay
    }

    /// Prints line `line` of the body (or the whole body) with a line break, escaped on a terminal
    /// as `show` does: `notes show NOTE --line 1` for a script that wants the password line.
    static func print(_ note: Note, line: Int?, dependencies: CLIDependencies) throws {
        let text = try selection(of: note.body, line: line, verb: "printed")
        let out = dependencies.console.out
        out.write((out.isTerminal ? TerminalSafeText.body(text) : text) + "\n")
    }

    /// The body without its final line break, or its line `line` (1-based) without the break.
    static func selection(of body: String, line: Int?, verb: String = "copied") throws -> String {
        guard let line else {
            let text = body.hasSuffix("\r\n") ? String(body.dropLast(2)) : body.hasSuffix("\n") ? String(body.dropLast()) : body
            guard !text.isEmpty else { throw CLIError(.usage, "The note's body is empty; nothing was \(verb).") }
            return text
        }
        var lines = body.split(separator: "\n", omittingEmptySubsequences: false)
        if body.hasSuffix("\n") { lines.removeLast() }
        guard line <= lines.count else {
            throw CLIError(.usage, "--line \(line): the body has \(lines.count) \(lines.count == 1 ? "line" : "lines"); nothing was \(verb).")
        }
        let selected = lines[line - 1]
        let text = String(selected.hasSuffix("\r") ? selected.dropLast() : selected)
        // An empty clipboard looks like a copy that failed; an empty line printed is still a line.
        if text.isEmpty && verb == "copied" { throw CLIError(.usage, "Line \(line) of the body is empty; nothing was copied.") }
        return text
    }
}
