import ArgumentParser
import Auth
import Foundation
import OneTimePassword
import Vault

/// `otp NOTE`: the one-time code of the note's `otpauth://` line, as pass-otp's `pass otp` gives it.
/// A TOTP code is computed from the clock; an HOTP code from the line's counter, which advances in
/// the note in the same write (the old revision kept in its history), so two runs never give the
/// same code. The secret is never printed.
struct OTPCommand: FingerlockCommand {
    static let configuration = CommandConfiguration(
        commandName: "otp",
        abstract: "Print (or copy) the one-time code of a note's otpauth:// line (TOTP or HOTP).",
        discussion: """
            The note's first line that starts with otpauth:// gives the code, as pass-otp stores it (the \
            pass import brings these lines in): TOTP (RFC 6238) from the clock, or HOTP (RFC 4226) from \
            its counter, which then advances in the note (its history keeps the old line). SHA1, SHA256 \
            and SHA512, 6 to 8 digits, any period. Only the code is printed, never the secret; on a \
            terminal a TOTP code also says how many seconds it stays valid.
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var passcode: PasscodeOptions
    @Argument(help: ArgumentHelp(NoteIDArgument.help, valueName: "id-or-title"), completion: NoteIDArgument.completion)
    var id: String
    @Flag(
        name: [.customShort("c"), .long],
        help: "Copy the code to the clipboard instead of printing it; cleared after clip-clear (45s).")
    var clip = false
    @OptionGroup var route: ClipboardChoice
    @Flag(name: .long, help: "Print a JSON object {code, type, digits, secondsLeft}.") var json = false
    var jsonOutput: Bool { json }

    func validate() throws {
        try NoteIDArgument.validate(id)
        if clip && json { throw ValidationError("--clip copies the code instead of printing it: leave out --json.") }
        try route.validate(copying: clip)
    }

    /// What `--json` prints: `secondsLeft` is null for HOTP.
    struct Output: Encodable {
        var code: String
        var type: String
        var digits: Int
        var secondsLeft: Int?

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(code, forKey: .code)
            try container.encode(type, forKey: .type)
            try container.encode(digits, forKey: .digits)
            try container.encode(secondsLeft, forKey: .secondsLeft)
        }

        enum CodingKeys: String, CodingKey { case code, type, digits, secondsLeft }
    }

    func run(with dependencies: CLIDependencies) async throws {
        let clipboard = clip ? try route.clipboard(dependencies) : nil
        let vault = try await NotesCommand.unlock(global, passcode, dependencies, json: json)
        defer { vault.close() }
        let noteID = try await NoteIDArgument.resolve(id, in: vault, person: .atTerminal(dependencies, json: json))
        let now = dependencies.now()
        let (note, line, code) = try Self.code(of: noteID, in: vault, at: now)
        let secondsLeft = line.uri.secondsLeft(at: now)
        let console = dependencies.console
        if let clipboard {
            let delay = try ClipOptions.copy(code, to: clipboard, vault: vault, dependencies: dependencies)
            let title = note.title.isEmpty ? "(untitled)" : TerminalSafeText.line(note.title)
            let valid = secondsLeft.map { " (valid for \($0) s)" } ?? ""
            console.print("The code of \"\(title)\" is on \(clipboard.name)\(valid); it is cleared in \(SecuritySettings.format(delay)).")
            return
        }
        if json {
            let type = secondsLeft == nil ? "hotp" : "totp"
            try console.printJSON(Output(code: code, type: type, digits: line.uri.digits, secondsLeft: secondsLeft))
            return
        }
        console.print(code)
        if let secondsLeft, console.out.isTerminal { console.err.write(console.dim("valid for \(secondsLeft) s") + "\n") }
    }

    /// The note's code at `now`. TOTP only reads; HOTP advances the counter in the note in one write
    /// transaction with the read it computes from, so a parallel run gets the next code, never the
    /// same one.
    static func code(of noteID: UUID, in vault: Vault, at now: Date) throws -> (Note, OTPLine, String) {
        let read = try vault.note(id: noteID)
        let first = try line(of: read)
        guard case .hotp = first.uri.kind else { return (read, first, first.uri.code(at: now)) }
        var found: (line: OTPLine, code: String)?
        let saved = try vault.update(id: noteID) { (note: inout Note) throws(CLIError) in
            let otp = try line(of: note)
            guard case .hotp(let counter) = otp.uri.kind else {
                // Changed to TOTP since the read a moment ago: nothing to advance.
                found = (otp, otp.uri.code(at: now))
                return
            }
            guard counter < UInt64.max else { throw CLIError(.dataError, "The HOTP counter of \"\(title(note))\" is at its end.") }
            found = (otp, otp.uri.code(counter: counter))
            note.body = otp.body(note.body, withCounter: counter + 1)
        }
        guard let found else { throw CLIError(.dataError, "The note could not be read.") }
        return (saved ?? read, found.line, found.code)
    }

    /// The note's first `otpauth://` line, or why there is none to use (never with the secret).
    private static func line(of note: Note) throws(CLIError) -> OTPLine {
        let line: OTPLine?
        do {
            line = try OTPLine.first(in: note.body)
        } catch {
            throw CLIError(.dataError, "The otpauth:// line of \"\(title(note))\" cannot be used: \(error.reason).")
        }
        guard let line else {
            throw CLIError(
                .notFound,
                "\"\(title(note))\" has no otpauth:// line: add one (from the site's QR code or setup key) with `fingerlock notes edit`.")
        }
        return line
    }

    private static func title(_ note: Note) -> String {
        note.title.isEmpty ? "(untitled)" : TerminalSafeText.line(note.title)
    }
}
