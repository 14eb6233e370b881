import Crypto
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The session's clipboard, through the tool it has: `wl-copy`/`wl-paste` on Wayland, else `xclip`
/// or `xsel` on X11 — the choice `pass -c` makes — or, asked for with `--osc52`, the terminal's own
/// (``TerminalClipboard``). The text goes to the tool on a pipe; it never appears in argv, the
/// environment or a file.
struct Clipboard: Equatable {
    enum Tool: Equatable {
        case wayland(copy: String, paste: String)
        case xclip(String)
        case xsel(String)
        /// The terminal at this path, through the OSC 52 escape sequence.
        case terminal(String)
    }

    let tool: Tool
    /// What the helpers see of our environment: only what they need to reach the display.
    let helperEnvironment: [String: String]

    /// Where the copy went, for the line that says so.
    var name: String {
        if case .terminal = tool { "the terminal's clipboard" } else { "the clipboard" }
    }

    /// The clipboard of the session `environment` describes (with `throughTerminal`, the terminal's
    /// own); a one-line error when there is none, found before any touch or passcode is asked for.
    static func find(environment: [String: String], throughTerminal: Bool, runner: any ChildProcessRunner) throws -> Clipboard {
        let kept = ["PATH", "HOME", "DISPLAY", "XAUTHORITY", "WAYLAND_DISPLAY", "XDG_RUNTIME_DIR", "LANG", "LC_ALL"]
        let helperEnvironment = environment.filter { kept.contains($0.key) }
        if throughTerminal {
            let path = try TerminalClipboard.find(environment: environment, runner: runner)
            return Clipboard(tool: .terminal(path), helperEnvironment: helperEnvironment)
        }
        func has(_ name: String) -> Bool { !(environment[name] ?? "").isEmpty }
        if has("WAYLAND_DISPLAY"), let copy = ExecutableSearch.find("wl-copy", environment: environment),
            let paste = ExecutableSearch.find("wl-paste", environment: environment)
        {
            return Clipboard(tool: .wayland(copy: copy, paste: paste), helperEnvironment: helperEnvironment)
        }
        guard has("DISPLAY") else {
            throw CLIError(
                .dataError,
                has("WAYLAND_DISPLAY")
                    ? "No clipboard: wl-copy and wl-paste (package wl-clipboard) are not on PATH and DISPLAY is not set."
                    : "No clipboard: neither WAYLAND_DISPLAY nor DISPLAY is set (over ssh or in a console, --osc52 copies through the terminal)."
            )
        }
        if let xclip = ExecutableSearch.find("xclip", environment: environment) {
            return Clipboard(tool: .xclip(xclip), helperEnvironment: helperEnvironment)
        }
        if let xsel = ExecutableSearch.find("xsel", environment: environment) {
            return Clipboard(tool: .xsel(xsel), helperEnvironment: helperEnvironment)
        }
        throw CLIError(.dataError, "No clipboard tool: install xclip or xsel (X11), or wl-clipboard (Wayland).")
    }

    /// Puts `text` on the clipboard.
    func copy(_ text: [UInt8], runner: any ChildProcessRunner) throws {
        let executable: String
        let arguments: [String]
        switch tool {
        case .terminal(let path): return try TerminalClipboard.copy(text, to: path)
        case .wayland(let copy, _): (executable, arguments) = (copy, [])
        case .xclip(let xclip): (executable, arguments) = (xclip, ["-selection", "clipboard"])
        case .xsel(let xsel): (executable, arguments) = (xsel, ["--clipboard", "--input"])
        }
        let status = try runner.feed(executable, arguments, environment: helperEnvironment, input: text)
        guard status == 0 else {
            throw CLIError(.dataError, "\(executable) could not set the clipboard (exit status \(status)).")
        }
    }

    /// Starts a detached clearer: after `delay` it empties the clipboard if it still holds `text`.
    /// It gets only the SHA-256 of the text, on its stdin pipe (never argv or the environment), and
    /// compares it with the hash of what the clipboard holds then, piped from the tool straight into
    /// `sha256sum`: it never holds the text, and something copied meanwhile is left alone. It
    /// outlives this process and a closed terminal (its own session, stdio at /dev/null).
    func scheduleClearing(of text: [UInt8], after delay: Duration, runner: any ChildProcessRunner) throws {
        // The tools' shell commands reading and emptying the clipboard, with the tools as "$2" (and "$3").
        let read: String
        let clear: String
        switch tool {
        case .terminal(let path):
            return try TerminalClipboard.scheduleClearing(of: path, after: delay, environment: helperEnvironment, runner: runner)
        case .wayland: (read, clear) = (#""$3" --no-newline"#, #""$2" --clear"#)
        case .xclip: (read, clear) = (#""$2" -selection clipboard -o"#, #"printf '' | "$2" -selection clipboard"#)
        case .xsel: (read, clear) = (#""$2" --clipboard --output"#, #""$2" --clipboard --clear"#)
        }
        // Fixed text: the script's only arguments are the delay and the tools' paths.
        let script = """
            IFS= read -r expected || exit 0
            exec 0</dev/null
            sleep "$1" || exit 0
            now=$( { \(read) 2>/dev/null; } | sha256sum ) || exit 0
            [ "${now%% *}" = "$expected" ] || exit 0
            \(clear)
            """
        let digest = Self.hex(SHA256.hash(data: text))
        try runner.detach(
            "/bin/sh", ["-c", script, "fingerlock-clip-clear", String(delay.components.seconds)] + toolPaths,
            environment: helperEnvironment, input: Array((digest + "\n").utf8))
    }

    private var toolPaths: [String] {
        switch tool {
        case .wayland(let copy, let paste): [copy, paste]
        case .xclip(let path), .xsel(let path), .terminal(let path): [path]
        }
    }

    static func hex<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}
