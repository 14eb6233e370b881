import Foundation
import SafeFiles

#if canImport(Glibc)
    import Glibc
#endif

/// The terminal's own clipboard, set with the OSC 52 escape sequence: what works over ssh and in a
/// console session where no display server's clipboard tool can run. The sequence goes straight
/// to the terminal the person looks at: the controlling terminal, or inside tmux the terminal of
/// tmux's client (asked from tmux), so no tmux paste buffer ever holds the text. A terminal cannot
/// be asked what its clipboard holds, so clearing empties it unconditionally.
enum TerminalClipboard {
    /// The most bytes copied this way: terminals cap the sequence (xterm and tmux near 100 KB).
    static let byteLimit = 74_000

    /// The terminal to write to, checked before any touch or passcode is asked for: a one-line
    /// error where the sequence would go nowhere (no terminal, the Linux console, GNU screen, a tmux
    /// without a client) or to a terminal that is not this user's.
    static func find(environment: [String: String], runner: any ChildProcessRunner) throws -> String {
        let path: String
        let termName: String
        if let tmux = environment["TMUX"], !tmux.isEmpty {
            (path, termName) = try tmuxClient(environment: environment, runner: runner)
        } else if let screen = environment["STY"], !screen.isEmpty {
            throw CLIError(
                .dataError, "GNU screen does not pass the terminal's clipboard (OSC 52) on: use --osc52 outside screen, or in tmux.")
        } else {
            guard let controlling = ControllingTerminal.path(), isControllingTerminal(controlling) else {
                throw CLIError(.dataError, "--osc52 copies through the terminal, and there is none here.")
            }
            (path, termName) = (controlling, environment["TERM"] ?? "")
        }
        switch termName {
        case "linux":
            throw CLIError(
                .dataError,
                "The Linux console has no clipboard that programs can set (OSC 52): run fingerlock in a terminal emulator, or leave out --osc52."
            )
        case "", "dumb":
            throw CLIError(
                .dataError, "This terminal (TERM=\(termName.isEmpty ? "unset" : "dumb")) takes no escape sequences, so --osc52 cannot copy here.")
        default: break
        }
        let descriptor = try open(path)
        close(descriptor)
        return path
    }

    /// Writes the sequence carrying `text` to the terminal at `path`.
    static func copy(_ text: [UInt8], to path: String) throws {
        guard text.count <= byteLimit else {
            throw CLIError(.dataError, "The text is \(text.count) bytes; the terminal's clipboard (OSC 52) takes at most \(byteLimit).")
        }
        var encoded = Data(text).base64EncodedData()
        defer { encoded.resetBytes(in: 0..<encoded.count) }
        var sequence = Array("\u{1B}]52;c;".utf8)
        defer { sequence.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) } }
        sequence.reserveCapacity(sequence.count + encoded.count + 1)
        sequence.append(contentsOf: encoded)
        sequence.append(0x07)
        let descriptor = try open(path)
        defer { close(descriptor) }
        if let error = FileDescriptorIO.writeAll(descriptor, sequence) {
            throw CLIError(.dataError, "Cannot write to the terminal \(TerminalSafeText.line(path)): \(String(cString: strerror(error))).")
        }
    }

    /// The clearer's script: after "$1" seconds, the empty sequence (which empties the clipboard)
    /// to the terminal "$2". Fixed text; its arguments are the delay and the terminal's path. The
    /// terminal is opened by `cat`, which is not the session leader the clearer is, so it never
    /// becomes the clearer's controlling terminal.
    static let clearScript = #"sleep "$1" || exit 0; printf '\033]52;c;\007' | cat > "$2""#
    /// The clearer's $0, by which a later copy finds it.
    static let clearerName = "fingerlock-osc52-clear"

    /// Starts the detached clearer for the terminal at `path`, after ending the clearers that
    /// earlier copies started there: the newest copy decides when the clipboard empties, so a code
    /// copied after a password is not cleared early.
    static func scheduleClearing(of path: String, after delay: Duration, environment: [String: String], runner: any ChildProcessRunner)
        throws
    {
        // The new clearer starts first: if it cannot, the earlier ones still clear.
        let earlier = clearers(of: path)
        try runner.detach(
            "/bin/sh", ["-c", clearScript, clearerName, String(delay.components.seconds), path], environment: environment, input: [])
        for pid in earlier { kill(-pid, SIGTERM) }
    }

    /// This user's clearers for the terminal at `path`, by their argv in /proc.
    static func clearers(of path: String, procRoot: String = "/proc") -> [pid_t] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: procRoot) else { return [] }
        let expected = ["/bin/sh", "-c", clearScript, clearerName]
        return entries.compactMap { entry -> pid_t? in
            guard let pid = pid_t(entry), pid != getpid() else { return nil }
            var info = stat()
            guard stat("\(procRoot)/\(entry)", &info) == 0, info.st_uid == getuid(),
                let data = FileManager.default.contents(atPath: "\(procRoot)/\(entry)/cmdline")
            else { return nil }
            let argv = data.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
            guard argv.count >= 6, Array(argv.prefix(4)) == expected, argv[5] == path else { return nil }
            return pid
        }
    }

    /// Whether `path` is this process's controlling terminal (a redirected stderr can name another).
    private static func isControllingTerminal(_ path: String) -> Bool {
        var named = stat()
        guard let number = ControllingTerminal.deviceNumber(), stat(path, &named) == 0 else { return false }
        return UInt64(number) == UInt64(named.st_rdev)
    }

    /// tmux's client terminal and its TERM, from the tmux server this shell runs in.
    private static func tmuxClient(environment: [String: String], runner: any ChildProcessRunner) throws -> (String, String) {
        guard let tmux = ExecutableSearch.find("tmux", environment: environment) else {
            throw CLIError(.dataError, "This runs inside tmux (TMUX is set), but tmux is not on PATH to name its terminal for --osc52.")
        }
        let kept = ["PATH", "HOME", "TMUX", "TMUX_PANE", "TMUX_TMPDIR", "LANG", "LC_ALL"]
        // This pane's session, and how many terminals show it: with several, tmux's "current client"
        // is only the last one used, which may be another machine's.
        let target = environment["TMUX_PANE"].map { ["-t", $0] } ?? []
        let answer = try runner.capture(
            tmux, ["display-message", "-p"] + target + ["#{session_attached}\t#{client_tty}\t#{client_termname}"],
            environment: environment.filter { kept.contains($0.key) }, outputLimit: 4096)
        let fields = String(decoding: answer.stdout, as: UTF8.self).trimmingCharacters(in: .newlines).split(
            separator: "\t", omittingEmptySubsequences: false)
        guard answer.status == 0, fields.count == 3 else {
            throw CLIError(.dataError, "tmux did not name the terminal it is shown in: \(TerminalSafeText.line(answer.firstErrorLine)).")
        }
        guard fields[1].hasPrefix("/dev/"), fields[0] != "0" else {
            throw CLIError(.dataError, "No terminal is attached to this tmux session, so --osc52 has no clipboard to copy to.")
        }
        guard fields[0] == "1" else {
            throw CLIError(
                .dataError,
                "This tmux session is shown on \(TerminalSafeText.line(String(fields[0]))) terminals, so --osc52 cannot tell which one is yours: detach the others, or leave out --osc52."
            )
        }
        return (String(fields[1]), String(fields[2]))
    }

    /// Opens the terminal at `path` for writing: refused unless it is a terminal owned by this user
    /// (the text is a secret; a path from tmux is not taken on trust).
    private static func open(_ path: String) throws -> Int32 {
        let descriptor = Glibc.open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw CLIError(.dataError, "Cannot open the terminal \(TerminalSafeText.line(path)): \(String(cString: strerror(errno))).")
        }
        var info = stat()
        guard isatty(descriptor) == 1, fstat(descriptor, &info) == 0, info.st_uid == getuid() else {
            close(descriptor)
            throw CLIError(.dataError, "\(TerminalSafeText.line(path)) is not a terminal of yours; --osc52 copies nothing there.")
        }
        return descriptor
    }
}
