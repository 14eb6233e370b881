import ArgumentParser
import Foundation
import Vault

/// `fingerlock pick`: one unlock, the notes' ids and titles to a picker (fzf, rofi -dmenu, dmenu),
/// and the chosen note's first line to the clipboard (or printed): what a hotkey runs.
struct PickCommand: FingerlockCommand {
    static let configuration = CommandConfiguration(
        commandName: "pick",
        abstract: "Choose a note in fzf, rofi or dmenu and copy its first line (one unlock), for a hotkey.",
        discussion: """
            The picker reads `ID<TAB>TITLE` lines (newest change first) on stdin and writes the chosen line \
            back; a line without a tab is taken as a note's name (id, title or fuzzy title). Without --picker: \
            fzf when there is a terminal, else rofi -dmenu, else dmenu. The titles reach the picker on a pipe \
            only. Leaving the picker without a choice exits 2.
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var passcode: PasscodeOptions
    @Flag(name: .long, help: "Copy to the clipboard (the default); cleared after clip-clear.") var clip = false
    @Flag(name: .customLong("print"), help: "Print instead of copying.") var printOnly = false
    @Flag(name: [.customLong("clip-all"), .customLong("all")], help: "The whole body instead of its first line.") var all = false
    @Option(name: .long, help: ArgumentHelp("Line N of the body instead of the first (from 1).", valueName: "n")) var line: Int?
    @Option(name: .long, help: ArgumentHelp("The picker, a shell command that reads lines on stdin and prints the chosen one.", valueName: "cmd"))
    var picker: String?
    @OptionGroup var route: ClipboardChoice

    /// The most a picker may answer: one line of a listing.
    static let answerLimit = 64 * 1024

    func validate() throws {
        if clip && printOnly { throw ValidationError("--clip and --print: choose one.") }
        if all && line != nil { throw ValidationError("--all takes the whole body: leave out --line.") }
        if let line, line < 1 { throw ValidationError("--line counts from 1.") }
        if let picker, picker.trimmingCharacters(in: .whitespaces).isEmpty { throw ValidationError("--picker needs a command.") }
        if route.osc52 && printOnly { throw ValidationError("--osc52 says where the note is copied to: leave out --print.") }
    }

    func run(with dependencies: CLIDependencies) async throws {
        // Everything that cannot work is found before the unlock.
        let clipboard: Clipboard? = if printOnly { nil } else { try route.clipboard(dependencies) }
        let command = try picker ?? Self.defaultPicker(dependencies)
        let vault = try await NotesCommand.unlock(global, passcode, dependencies)
        defer { vault.close() }
        let notes = try vault.list()
        guard !notes.isEmpty else { throw CLIError(.notFound, "No notes yet: `fingerlock notes add` adds one.") }
        let menu = PickMenu(notes)
        var input = menu.text
        defer { input.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) } }
        let answer = try dependencies.childProcesses.choose(
            "/bin/sh", ["-c", command], environment: dependencies.environment, input: input, outputLimit: Self.answerLimit)
        let chosen = String(decoding: answer.stdout, as: UTF8.self).split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        if chosen.trimmingCharacters(in: .whitespaces).isEmpty || answer.exceededLimit {
            // fzf exits 130 on Esc and 1 with no match, rofi and dmenu 1: nothing chosen, as the person meant.
            guard [0, 1, 130].contains(answer.status) || answer.exceededLimit else {
                throw CLIError(.dataError, "The picker (\(TerminalSafeText.line(command))) failed with exit status \(answer.status).")
            }
            throw CLIError(.cancelled, "Nothing was picked.")
        }
        let id: UUID
        if let listed = try menu.id(for: chosen) { id = listed } else { id = try await NoteIDArgument.resolve(chosen, in: vault) }
        let note = try vault.note(id: id)
        let selected = all ? nil : line ?? 1
        if let clipboard {
            try ClipOptions.copy(note, line: selected, to: clipboard, vault: vault, dependencies: dependencies)
        } else {
            try ClipOptions.print(note, line: selected, dependencies: dependencies)
        }
    }

    /// fzf in a terminal, else the first of rofi and dmenu on PATH.
    static func defaultPicker(_ dependencies: CLIDependencies) throws -> String {
        let environment = dependencies.environment
        let fzf = ExecutableSearch.find("fzf", environment: environment) != nil
        if fzf, dependencies.openTerminal() != nil {
            return "fzf --delimiter='\t' --with-nth=2.. --prompt='note> '"
        }
        if ExecutableSearch.find("rofi", environment: environment) != nil { return "rofi -dmenu -i -p note" }
        if ExecutableSearch.find("dmenu", environment: environment) != nil { return "dmenu -i -p note" }
        if fzf {
            throw CLIError(
                .dataError, "fzf needs a terminal, and there is none here: run pick in one, install rofi or dmenu, or name one with --picker CMD.")
        }
        throw CLIError(.dataError, "No picker: install fzf, rofi or dmenu, or name one with --picker CMD.")
    }
}

/// The lines a picker is given (`ID<TAB>TITLE`, ids as short as `notes list` shows them unless two
/// share a start, titles on one line and escaped) and the way back from a chosen line to its note.
struct PickMenu {
    let text: [UInt8]
    private let ids: [String: UUID]

    init(_ notes: [NoteSummary]) {
        let short = notes.map { NotesCommand.shortID($0.id) }
        // 8 hex digits: two notes sharing them is rare, and then every id is given whole.
        let unique = Set(short).count == short.count
        let shown = unique ? short : notes.map { $0.id.uuidString.lowercased() }
        var text: [UInt8] = []
        for (id, note) in zip(shown, notes) {
            text += Array(id.utf8) + [0x09]
            // A tab in a title is escaped by `line` too: the first tab always ends the id.
            text += Array((note.title.isEmpty ? "(untitled)" : TerminalSafeText.line(note.title)).utf8) + [0x0A]
        }
        self.text = text
        ids = Dictionary(zip(shown, notes.map(\.id)), uniquingKeysWith: { first, _ in first })
    }

    /// The note of a line as given (or a picker's echo of it, trimmed); nil for a line without a tab.
    func id(for line: String) throws -> UUID? {
        guard let tab = line.firstIndex(of: "\t") else { return nil }
        let shown = line[..<tab].trimmingCharacters(in: .whitespaces)
        guard let id = ids[shown] else {
            throw CLIError(.notFound, "The picker chose \"\(TerminalSafeText.line(String(shown.prefix(64))))\", which is not a note it was given.")
        }
        return id
    }
}
