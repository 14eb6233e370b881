import ArgumentParser
import Auth
import Foundation
import Vault

/// `generate NAME [LENGTH]`, as `pass generate`: a random password as the first line of the note
/// titled NAME, a new note unless one has that title; an existing one only with `--in-place` (its
/// other lines kept) or `--force` (its body replaced), the old password kept in its history.
struct GenerateCommand: FingerlockCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Generate a random password as the first line of a note (a new one, or an existing one with --in-place).",
        discussion: """
            From the kernel's random generator, each character uniform over the 94 printable ASCII \
            characters but the space (with --no-symbols over the 62 letters and digits), with at least \
            one of each kind (upper and lower case, digit, symbol). The default 25 characters carry \
            \(Self.bits(symbols: true)) bits (\(Self.bits(symbols: false)) with --no-symbols). NAME is a \
            title taken exactly: a note with that title is changed only with --in-place (the first line \
            replaced, the rest kept) or --force (the whole body replaced); its history keeps the old one. \
            The password is printed on stdout (nothing else is), or with --clip copied instead.
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var passcode: PasscodeOptions
    @Argument(help: ArgumentHelp("The note's title, exactly.", valueName: "name")) var name: String
    @Argument(help: ArgumentHelp("How many characters (default 25, from 4 to 1024).", valueName: "length"))
    var length: Int = PasswordGenerator.defaultLength
    @Flag(name: [.customShort("n"), .customLong("no-symbols")], help: "Letters and digits only.") var noSymbols = false
    @Flag(
        name: [.customShort("c"), .long],
        help: "Copy the password to the clipboard instead of printing it; cleared after clip-clear (45s).")
    var clip = false
    @OptionGroup var route: ClipboardChoice
    @Flag(name: [.customShort("i"), .customLong("in-place")], help: "Replace the first line of an existing note, keep the rest.")
    var inPlace = false
    @Flag(name: [.customShort("f"), .long], help: "Replace the whole body of an existing note.") var force = false

    static func bits(symbols: Bool) -> Int {
        Int(PasswordGenerator(symbolsIncluded: symbols).entropyBits(length: PasswordGenerator.defaultLength))
    }

    func validate() throws {
        try NoteIDArgument.validate(name)
        if inPlace && force { throw ValidationError("--in-place keeps the rest of the note and --force replaces it: choose one.") }
        try route.validate(copying: clip)
        guard PasswordGenerator.lengths.contains(length) else {
            throw ValidationError("The length must be from \(PasswordGenerator.lengths.lowerBound) to \(PasswordGenerator.lengths.upperBound).")
        }
    }

    func run(with dependencies: CLIDependencies) async throws {
        let clipboard = clip ? try route.clipboard(dependencies) : nil
        let vault = try await NotesCommand.unlock(global, passcode, dependencies)
        defer { vault.close() }
        let password = PasswordGenerator(symbolsIncluded: !noSymbols).password(length: length)
        let title = TerminalSafeText.line(name)
        let saved = try save(password, in: vault)
        let console = dependencies.console
        if let clipboard {
            let delay = try ClipOptions.copy(password, to: clipboard, vault: vault, dependencies: dependencies)
            console.print("The new password of \"\(title)\" is on \(clipboard.name); it is cleared in \(SecuritySettings.format(delay)).")
        } else {
            console.print(password)
        }
        let short = String(saved.note.id.uuidString.lowercased().prefix(8))
        console.err.write(
            saved.existed
                ? "Saved in \"\(title)\" (\(short)); `fingerlock notes history \(short)` keeps the old password.\n"
                : "Saved as a new note \"\(title)\" (\(short)).\n")
    }

    /// The note titled `name` with `password` as its first line: a new note, or the existing one
    /// changed in one write with the read (so nothing another process saved meanwhile is lost).
    func save(_ password: String, in vault: Vault) throws -> (note: Note, existed: Bool) {
        let titled = try vault.list().filter { $0.title == name }
        guard let existing = titled.first else { return (try vault.add(title: name, body: password + "\n"), false) }
        guard titled.count == 1 else {
            throw CLIError(
                .usage, "\(titled.count) notes are titled \"\(TerminalSafeText.line(name))\": give one another title first; nothing was changed.")
        }
        guard inPlace || force else {
            throw CLIError(
                .usage,
                "A note is titled \"\(TerminalSafeText.line(name))\": --in-place replaces its first line, --force its whole body; nothing was changed."
            )
        }
        let saved = try vault.update(id: existing.id) { (note: inout Note) in
            note.body = force ? password + "\n" : Self.replacingFirstLine(of: note.body, with: password)
        }
        return (try saved ?? vault.note(id: existing.id), true)
    }

    /// `body` with its first line (up to the first LF; a CR before it stays) replaced by `line`.
    static func replacingFirstLine(of body: String, with line: String) -> String {
        guard let end = body.unicodeScalars.firstIndex(of: "\n") else { return line + "\n" }
        let first = body.unicodeScalars[..<end]
        let carriageReturn = first.last == "\r"
        return line + (carriageReturn ? "\r" : "") + String(body.unicodeScalars[end...])
    }
}
