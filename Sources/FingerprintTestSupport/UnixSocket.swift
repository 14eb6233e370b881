#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A connected, non-blocking unix stream socket (client side), closed on deinit.
///
/// Waiting is done with short `Task.sleep`s instead of blocking calls, so a test that waits on
/// libfprint can always be cancelled and never blocks the cooperative thread pool.
final class UnixSocket {
    private(set) var descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { close() }

    func close() {
        if descriptor >= 0 {
            _ = Glibc.close(descriptor)
            descriptor = -1
        }
    }

    /// Connects to `path`, retrying while the socket is not there yet (ENOENT) or nobody listens
    /// (ECONNREFUSED, EAGAIN: libfprint listens only while the device is open).
    static func connect(to path: String, timeout: Duration) async throws -> UnixSocket {
        let deadline = ContinuousClock.now + timeout
        while true {
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { throw VirtualDeviceError.system("socket", errno) }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let capacity = MemoryLayout.size(ofValue: address.sun_path)
            guard path.utf8.count < capacity else {
                _ = Glibc.close(fd)
                throw VirtualDeviceError.pathTooLong(path)
            }
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                raw.copyBytes(from: Array(path.utf8) + [0])
            }
            let result = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            if result == 0 {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                return UnixSocket(descriptor: fd)
            }
            let failure = errno
            _ = Glibc.close(fd)
            guard failure == ENOENT || failure == ECONNREFUSED || failure == EAGAIN else {
                throw VirtualDeviceError.system("connect to \(path)", failure)
            }
            guard ContinuousClock.now < deadline else { throw VirtualDeviceError.notListening(path) }
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    /// Writes every byte, waiting while the peer's buffer is full.
    nonisolated(nonsending) func write(_ bytes: [UInt8], timeout: Duration) async throws {
        let deadline = ContinuousClock.now + timeout
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { raw in
                send(descriptor, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL))
            }
            if written > 0 {
                offset += written
                continue
            }
            let failure = errno
            guard written < 0, failure == EAGAIN || failure == EWOULDBLOCK || failure == EINTR else {
                throw VirtualDeviceError.system("write", failure)
            }
            guard ContinuousClock.now < deadline else { throw VirtualDeviceError.noAcknowledgement }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    /// Reads until the peer closes the connection and returns what it sent.
    nonisolated(nonsending) func readToEnd(timeout: Duration) async throws -> [UInt8] {
        let deadline = ContinuousClock.now + timeout
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { raw in recv(descriptor, raw.baseAddress, raw.count, 0) }
            if count > 0 {
                received += buffer[..<count]
                continue
            }
            if count == 0 { return received }
            let failure = errno
            if failure == ECONNRESET { return received }
            guard failure == EAGAIN || failure == EWOULDBLOCK || failure == EINTR else {
                throw VirtualDeviceError.system("read", failure)
            }
            guard ContinuousClock.now < deadline else { throw VirtualDeviceError.noAcknowledgement }
            try await Task.sleep(for: .milliseconds(1))
        }
    }
}

/// What can go wrong while talking to a libfprint virtual device.
public enum VirtualDeviceError: Error, CustomStringConvertible, Equatable {
    /// Nothing listened on the socket in time: the device was never opened.
    case notListening(String)
    /// libfprint did not close the connection in time (it only reads while an operation runs).
    case noAcknowledgement
    /// The socket path does not fit in `sockaddr_un`.
    case pathTooLong(String)
    /// A system call failed.
    case system(String, Int32)
    /// The image file is not a binary 8-bit PGM.
    case badImage(String)

    public var description: String {
        switch self {
        case .notListening(let path): "Nothing listened on \(path) in time: the virtual device was not opened."
        case .noAcknowledgement: "libfprint did not acknowledge the command in time."
        case .pathTooLong(let path): "The socket path \(path) is too long."
        case .system(let call, let code): "\(call) failed: \(String(cString: strerror(code)))."
        case .badImage(let reason): "Not a binary 8-bit PGM image: \(reason)."
        }
    }
}
