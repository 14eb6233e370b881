import Foundation
import SafeFiles

#if canImport(Glibc)
    import Glibc
#endif

/// Long human output on a terminal goes through `$PAGER` (default `less -FRX`), as git does; output
/// to a pipe or a file never does.
///
/// The pager sees decrypted notes, so it gets them through a pipe only (never a file), and it is
/// kept from writing them anywhere: less runs with `LESSSECURE=1` (no shell escapes, no `s` to save
/// the input to a file, no editor, no log file, no input preprocessor) and `LESSHISTFILE=-` (no
/// history file with searched-for text), and `LESSSECURE_ALLOW`, which would re-enable features, is
/// removed. Another pager gets the same environment, which it may ignore: the user is told, as for
/// an editor fingerlock cannot restrain. `PAGER=` or `PAGER=cat` turns paging off.
struct Pager: Equatable {
    /// The `/bin/sh -c` command line.
    let command: String
    /// Whether the program is less, whose own file writing is turned off.
    let isLess: Bool

    static let defaultCommand = "less -FRX"

    /// The pager `environment` asks for, or nil when paging is off.
    init?(environment: [String: String]) {
        let command = (environment["PAGER"] ?? Self.defaultCommand).trimmingCharacters(in: .whitespaces)
        guard !command.isEmpty, command != "cat" else { return nil }
        self.command = command
        let program = command.split(separator: " ", maxSplits: 1).first.map(String.init) ?? command
        isLess = (program as NSString).lastPathComponent == "less"
    }

    /// One line for stderr when the pager is not one whose files fingerlock can turn off.
    var notice: String? {
        guard !isLess else { return nil }
        return "the pager \(TerminalSafeText.line(command)) may save what it shows (use PAGER=less, or PAGER=cat for none); "
            + "less is run with its history and file writing off."
    }

    /// The pager's environment: the user's, with less's writing of files turned off and, as git
    /// does, `LESS=FRX` when the user has not chosen options (quit on one screen, colours, no
    /// screen clearing).
    func environment(from base: [String: String]) -> [String: String] {
        var environment = base
        environment["LESSSECURE"] = "1"
        environment["LESSHISTFILE"] = "-"
        environment["LESSSECURE_ALLOW"] = nil
        if environment["LESS"] == nil { environment["LESS"] = "FRX" }
        return environment
    }

    /// Whether `text` is long enough to page on a terminal of `rows` rows. A terminal that reports
    /// no size (a bare pseudo-terminal, as `expect` or a CI runner makes) is not paged: nobody can
    /// tell what fits, and a pager there would wait for a key nobody presses.
    static func isLong(_ text: String, rows: Int?) -> Bool {
        guard let rows, rows > 0 else { return false }
        var lines = 0
        for byte in text.utf8 where byte == UInt8(ascii: "\n") {
            lines += 1
            if lines >= rows { return true }
        }
        return false
    }

    /// Writes `text` on stdout: through the pager when stdout is a terminal, paging is on and the
    /// text does not fit on the screen; as it is otherwise.
    static func write(_ text: String, environment: [String: String], console: Console) {
        // A dumb terminal (TERM=dumb or none) cannot run a full-screen pager: less would stop to warn.
        let term = environment["TERM"] ?? ""
        guard console.out.isTerminal, !term.isEmpty, term != "dumb", let output = console.out as? FileDescriptorOutput,
            let pager = Pager(environment: environment), isLong(text, rows: terminalRows(output.fd))
        else {
            console.out.write(text)
            return
        }
        if let notice = pager.notice { console.err.write("fingerlock: \(notice)\n") }
        if !pager.run(text, environment: pager.environment(from: environment)) {
            // The pager could not be started: the text is not lost.
            console.out.write(text)
        }
    }

    static func terminalRows(_ fd: Int32) -> Int? {
        var size = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_row > 0 else { return nil }
        return Int(size.ws_row)
    }

    /// Runs the pager with `text` on a pipe as its stdin (stdout and stderr stay the terminal);
    /// false when it could not be started. Ctrl-C belongs to the pager meanwhile (less uses it to
    /// stop a search), and a pager quit early is no write error: SIGINT and SIGPIPE are ignored here
    /// until it has exited, as git does.
    private func run(_ text: String, environment: [String: String]) -> Bool {
        var ends: [Int32] = [-1, -1]
        // (pipe2 is not visible to Swift.) Close-on-exec: the pager must not hold the write end, or
        // it would wait for input forever; its stdin is a duplicate, which does not inherit the flag.
        guard pipe(&ends) == 0 else { return false }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var ignore = sigaction()
        ignore.__sigaction_handler.sa_handler = SIG_IGN
        sigemptyset(&ignore.sa_mask)
        let signals = [SIGINT, SIGQUIT, SIGPIPE]
        var previous: [Glibc.sigaction] = signals.map { _ in Glibc.sigaction() }
        for index in signals.indices { sigaction(signals[index], &ignore, &previous[index]) }
        defer { for index in signals.indices { sigaction(signals[index], &previous[index], nil) } }
        let pid: pid_t
        do {
            pid = try ChildProcess.spawn(["/bin/sh", "-c", command], environment: environment, redirections: [(ends[0], STDIN_FILENO)])
        } catch {
            close(ends[0])
            close(ends[1])
            return false
        }
        close(ends[0])
        // EPIPE when the user quits before the end: the rest is simply not shown.
        _ = FileDescriptorIO.writeAll(ends[1], Array(text.utf8))
        close(ends[1])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return true
    }
}
