import FingerlockCLITestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Runs the built binary (or another program) with a pseudo-terminal as its controlling terminal, so prompts on
/// `/dev/tty` can be read and answered (and Ctrl-C sent) as a person at a keyboard would.
final class PseudoTerminalSession {
    let process = Process()
    private let master: Int32
    /// The terminal's path, to inspect its modes after the program is gone.
    let slavePath: String
    /// Every byte read, decoded whole (a read may end inside a character).
    private var received: [UInt8] = []
    private var transcript: String { String(decoding: received, as: UTF8.self) }

    /// - Parameter rows: the window's height (a new pseudo-terminal has none: 0 rows, 0 columns).
    /// - Parameter program: what runs there: the built binary unless told (a shell, say).
    init(program: String = BinaryRunner.binaryPath, arguments: [String], environment: [String: String], rows: UInt16? = nil) throws {
        // posix_openpt and friends are hidden from Swift's Glibc module; these are the ioctls they use.
        master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        var unlock: CInt = 0
        var number: CUnsignedInt = 0
        // The ioctls TIOCSPTLCK and TIOCGPTN (Linux's numbers; Glibc does not import the macros).
        let tiocsptlck: UInt = 0x4004_5431
        let tiocgptn: UInt = 0x8004_5430
        guard master >= 0, ioctl(master, tiocsptlck, &unlock) == 0, ioctl(master, tiocgptn, &number) == 0 else {
            throw POSIXError(.EIO)
        }
        slavePath = "/dev/pts/\(number)"
        if let rows {
            var size = winsize(ws_row: rows, ws_col: 80, ws_xpixel: 0, ws_ypixel: 0)
            let tiocswinsz: UInt = 0x5414  // TIOCSWINSZ
            guard ioctl(master, tiocswinsz, &size) == 0 else { throw POSIXError(.EIO) }
        }
        let slave = open(slavePath, O_RDWR | O_NOCTTY)
        guard slave >= 0 else { throw POSIXError(.EIO) }
        let handle = FileHandle(fileDescriptor: slave, closeOnDealloc: true)
        // `setsid --ctty` makes the pty (our stdin) the child's controlling terminal.
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
        process.arguments = ["--ctty", "--wait", program] + arguments
        process.environment = environment
        process.standardInput = handle
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        try handle.close()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        close(master)
    }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress!, $0.count) }
    }

    /// Reads until `text` has appeared in the output — after the last `after` when given — or
    /// fails after `timeout`.
    @discardableResult
    func expect(
        _ text: String, after marker: String? = nil, timeout: Duration = .seconds(30),
        sourceLocation: SourceLocation = #_sourceLocation
    ) async -> Bool {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        func seen() -> Bool {
            let all = transcript
            guard let marker else { return all.contains(text) }
            guard let range = all.range(of: marker, options: .backwards) else { return false }
            return all[range.upperBound...].contains(text)
        }
        while !seen() {
            guard ContinuousClock.now < deadline, await readSome() else {
                Issue.record("expected \(text.debugDescription) in the terminal; got \(transcript.debugDescription)", sourceLocation: sourceLocation)
                return false
            }
        }
        return true
    }

    /// Reads until `text` has appeared `count` times in all.
    @discardableResult
    func expect(_ text: String, count: Int, timeout: Duration = .seconds(30), sourceLocation: SourceLocation = #_sourceLocation) async -> Bool {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while transcript.components(separatedBy: text).count - 1 < count {
            guard ContinuousClock.now < deadline, await readSome() else {
                Issue.record("expected \(text.debugDescription) \(count) times; got \(transcript.debugDescription)", sourceLocation: sourceLocation)
                return false
            }
        }
        return true
    }

    /// Waits for the process to end, collecting the rest of its output; returns its status.
    func waitForExit(timeout: Duration = .seconds(30)) async -> Int32 {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while process.isRunning && ContinuousClock.now < deadline { _ = await readSome() }
        if process.isRunning {
            Issue.record("the process did not exit; output: \(transcript.debugDescription)")
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        while readAvailable() {}
        return process.terminationStatus
    }

    var output: String { transcript }

    /// Reads until the program has written nothing for `quiet` (at most `timeout`): a shell that has
    /// finished redrawing its line.
    func waitForQuiet(_ quiet: Duration, timeout: Duration = .seconds(10)) async {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        var lastOutput = ContinuousClock.now
        while ContinuousClock.now < deadline, ContinuousClock.now - lastOutput < quiet {
            if readAvailable() {
                lastOutput = ContinuousClock.now
            } else {
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
    }

    /// The pid of fingerlock itself (`setsid --wait` forks it as its only child).
    var programPID: pid_t? {
        let parent = process.processIdentifier
        guard let text = try? String(contentsOfFile: "/proc/\(parent)/task/\(parent)/children", encoding: .utf8) else { return nil }
        return text.split(separator: " ").first.flatMap { pid_t($0) }
    }

    /// Whether the terminal echoes and edits lines (as a shell expects it back).
    var terminalIsCooked: Bool {
        let fd = open(slavePath, O_RDWR | O_NOCTTY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var modes = termios()
        guard tcgetattr(fd, &modes) == 0 else { return false }
        return modes.c_lflag & tcflag_t(ECHO) != 0 && modes.c_lflag & tcflag_t(ICANON) != 0
    }

    /// Reads what is there, or sleeps briefly when nothing is; false once the child is gone and
    /// nothing is left.
    private func readSome() async -> Bool {
        if readAvailable() { return true }
        guard process.isRunning else { return readAvailable() }
        try? await Task.sleep(for: .milliseconds(10))
        return true
    }

    private func readAvailable() -> Bool {
        var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, 0) > 0 else { return false }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = read(master, &buffer, buffer.count)
        guard count > 0 else { return false }
        received += buffer[0..<count]
        return true
    }
}
