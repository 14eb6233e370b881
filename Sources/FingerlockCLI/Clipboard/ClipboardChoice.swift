import ArgumentParser

/// Which clipboard a copy goes to: the session's (wl-copy, xclip, xsel), or the terminal's own
/// through OSC 52 when asked for, by `--osc52` once or by `FINGERLOCK_CLIPBOARD=osc52` for every
/// copy (in the shell profile of a machine reached over ssh).
struct ClipboardChoice: ParsableArguments {
    @Flag(
        name: .customLong("osc52"),
        help:
            "Copy through the terminal's own clipboard (the OSC 52 sequence) instead of wl-copy or xclip: over ssh, in a console, in tmux. Also FINGERLOCK_CLIPBOARD=osc52."
    )
    var osc52 = false

    /// `--osc52` says where a copy goes: refused where nothing is copied.
    func validate(copying: Bool) throws {
        if osc52 && !copying { throw ValidationError("--osc52 says where --clip copies to: add --clip (or -c).") }
    }

    /// The environment variable that makes OSC 52 every copy's route.
    static let variable = "FINGERLOCK_CLIPBOARD"

    /// The clipboard to copy to, found before any touch or passcode is asked for.
    func clipboard(_ dependencies: CLIDependencies) throws -> Clipboard {
        try Clipboard.find(
            environment: dependencies.environment, throughTerminal: try throughTerminal(dependencies.environment),
            runner: dependencies.childProcesses)
    }

    func throughTerminal(_ environment: [String: String]) throws -> Bool {
        if osc52 { return true }
        switch environment[Self.variable] ?? "" {
        case "", "auto": return false
        case "osc52": return true
        case let other:
            throw CLIError(.usage, "\(Self.variable)=\(TerminalSafeText.line(other)): it is osc52 or auto.")
        }
    }
}
