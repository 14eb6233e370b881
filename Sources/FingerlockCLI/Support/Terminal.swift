#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The controlling terminal (`/dev/tty`), where prompts go so stdin stays free for note bodies.
public final class Terminal: Sendable {
    private let fd: Int32

    /// Opens the controlling terminal; nil when the process has none (non-interactive).
    public init?(path: String = "/dev/tty") {
        let fd = open(path, O_RDWR | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else { return nil }
        self.fd = fd
    }

    deinit { close(fd) }

    public func write(_ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += written
        }
    }

    public enum LineResult: Equatable, Sendable {
        case line(String)
        case timedOut
        case endOfInput
    }

    /// Reads one line, waiting at most `timeout`; throws `CancellationError` soon after the task is
    /// cancelled (it polls in short slices so a Ctrl-C handled elsewhere ends the wait).
    public func readLine(timeout: Duration) async throws -> LineResult {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        var bytes: [UInt8] = []
        while true {
            try Task.checkCancellation()
            let left = deadline - clock.now
            if left <= .zero { return .timedOut }
            let sliceMilliseconds = Int32(min(100, max(1, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)))
            var pollfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pollfd, 1, sliceMilliseconds)
            if ready < 0 {
                if errno == EINTR { continue }
                return .endOfInput
            }
            if ready == 0 {
                await Task.yield()
                continue
            }
            var byte: UInt8 = 0
            let count = Glibc.read(fd, &byte, 1)
            if count <= 0 {
                if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
                return bytes.isEmpty ? .endOfInput : .line(String(decoding: bytes, as: UTF8.self))
            }
            if byte == UInt8(ascii: "\n") { return .line(String(decoding: bytes, as: UTF8.self)) }
            bytes.append(byte)
        }
    }
}
