import SafeFiles

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The controlling terminal (`/dev/tty`), where prompts go so stdin stays free for note bodies.
public final class Terminal: Sendable {
    let fd: Int32

    /// Opens the controlling terminal; nil when the process has none (non-interactive).
    public init?(path: String = "/dev/tty") {
        let fd = open(path, O_RDWR | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else { return nil }
        self.fd = fd
    }

    deinit { close(fd) }

    public func write(_ text: String) {
        FileDescriptorIO.writeAll(fd, Array(text.utf8))
    }

    public enum LineResult: Equatable, Sendable {
        case line(String)
        case timedOut
        case endOfInput
    }

    /// Reads one line (echo as configured), waiting at most `timeout`.
    public func readLine(timeout: Duration) async throws -> LineResult {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        var bytes: [UInt8] = []
        while true {
            guard let byte = try await readByte(until: deadline) else { return .timedOut }
            switch byte {
            case .some(let value) where value == UInt8(ascii: "\n"):
                return .line(String(decoding: bytes, as: UTF8.self))
            case .some(let value):
                bytes.append(value)
            case .none:
                return bytes.isEmpty ? .endOfInput : .line(String(decoding: bytes, as: UTF8.self))
            }
        }
    }

    /// One byte: nil when the deadline passed, `.some(nil)` at end of input. Polls in short slices
    /// so task cancellation ends the wait promptly.
    func readByte(until deadline: ContinuousClock.Instant) async throws -> UInt8?? {
        let clock = ContinuousClock()
        while true {
            try Task.checkCancellation()
            try checkTerminationSignal()
            let left = deadline - clock.now
            if left <= .zero { return nil }
            let milliseconds = left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, Int32(min(50, max(1, milliseconds))))
            if ready < 0 {
                if errno == EINTR { continue }
                return .some(nil)
            }
            if ready == 0 {
                await Task.yield()
                continue
            }
            var byte: UInt8 = 0
            let count = Glibc.read(fd, &byte, 1)
            if count == 1 { return .some(byte) }
            if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            return .some(nil)
        }
    }

    /// Shows `prompt` and reads one line with echo under our control: each character shows only while the text so far
    /// passes `echoes`; once it does not, what was shown is erased and the rest stays hidden (a
    /// passcode typed at the wrong prompt never appears on screen). Backspace and Ctrl-U edit; Ctrl-C
    /// still interrupts (signal keys stay on).
    public func readGuardedLine(prompt: String, timeout: Duration, echoes: (String) -> Bool) async throws -> LineResult {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        return try await withRawInput(keepingSignalKeys: true) {
            // Only once the terminal's own echo is off: what is typed the moment the prompt shows
            // (a passcode, maybe) must never be echoed by the kernel.
            write(prompt)
            var bytes: [UInt8] = []
            var shown = 0
            func redraw() {
                let text = String(decoding: bytes, as: UTF8.self)
                let visible = echoes(text) ? text.count : 0
                if visible != shown || visible > 0 {
                    write(String(repeating: "\u{8} \u{8}", count: shown) + (visible > 0 ? text : ""))
                }
                shown = visible
            }
            while true {
                guard let byte = try await readByte(until: deadline) else {
                    return .timedOut
                }
                switch byte {
                case .none:
                    return bytes.isEmpty ? .endOfInput : .line(String(decoding: bytes, as: UTF8.self))
                case .some(0x0A), .some(0x0D):
                    write("\n")
                    return .line(String(decoding: bytes, as: UTF8.self))
                case .some(0x04) where bytes.isEmpty:
                    return .endOfInput
                case .some(0x7F), .some(0x08):
                    // One character back: drop UTF-8 continuation bytes with it.
                    while let last = bytes.popLast(), last & 0xC0 == 0x80 {}
                    redraw()
                case .some(0x15):
                    bytes.removeAll()
                    redraw()
                case .some(let value) where value < 0x20:
                    continue
                case .some(let value):
                    bytes.append(value)
                    if String(validating: bytes, as: UTF8.self) != nil { redraw() }
                }
            }
        }
    }

    /// Runs `body` with echo, line editing and signal keys off (Ctrl-C arrives as a byte), and
    /// always restores the terminal as it was. `keepingSignalKeys` leaves Ctrl-C and Ctrl-Z to the
    /// kernel as usual.
    func withRawInput<T>(keepingSignalKeys: Bool = false, _ body: () async throws -> T) async throws -> T {
        var saved = termios()
        guard tcgetattr(fd, &saved) == 0 else { return try await body() }
        // A SIGTERM or SIGHUP meanwhile ends the body (see `readByte`) so the terminal is restored
        // before the process goes: never left without echo.
        let restoreSignals = latchTerminationSignals()
        defer { restoreSignals() }
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | IEXTEN | (keepingSignalKeys ? 0 : ISIG))
        raw.c_iflag &= ~tcflag_t(ICRNL)
        tcsetattr(fd, TCSANOW, &raw)
        defer {
            var restore = saved
            tcsetattr(fd, TCSANOW, &restore)
        }
        return try await body()
    }
}
