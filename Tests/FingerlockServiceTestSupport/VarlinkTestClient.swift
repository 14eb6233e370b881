import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A bare Varlink client for tests: raw bytes in, NUL-terminated JSON out, every wait bounded.
/// Used by one thread at a time (a test hands it to the thread that runs its blocking part).
public final class VarlinkTestClient: @unchecked Sendable {
    let fd: Int32
    /// Bytes read past the last message returned (replies to pipelined calls arrive together).
    private var buffer = [UInt8]()

    public struct Failure: Error, CustomStringConvertible { public var description: String }

    public init(path: String) throws {
        // A local descriptor until it is connected: a class whose every stored property is set is
        // deinitialised when its initialiser throws, so closing `self.fd` here and again in deinit
        // freed the number twice, the second time closing whatever a parallel test had opened
        // under it (seen as "connect failed: Bad file descriptor" in another suite, when a flood
        // test's connections were refused).
        let socketFD = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socketFD >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socketFD, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            let error = errno
            close(socketFD)
            throw Failure(description: "connect \(path): errno \(error)")
        }
        fd = socketFD
    }

    deinit { close(fd) }

    /// Hangs up as a client that goes away does: the service sees end-of-file. `shutdown`, not
    /// `close`: the descriptor stays this object's until deinit, so its number is never freed twice
    /// (a second close would close whatever file a parallel test opened under that number).
    public func hangUp() {
        _ = shutdown(fd, Int32(SHUT_RDWR))
    }

    public func send(raw bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
            }
            // Foundation's SIGCHLD handler (other tests start processes) interrupts system calls.
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw Failure(description: "send: errno \(errno)") }
            offset += n
        }
    }

    public func send(_ text: String) throws { try send(raw: Array(text.utf8) + [0]) }

    public func halfClose() { shutdown(fd, Int32(SHUT_WR)) }

    /// The next message, or nil on EOF; throws after `timeout`.
    public func receive(timeout: Double = 5) throws -> [String: Any]? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let end = buffer.firstIndex(of: 0) {
                let message = Data(buffer[..<end])
                buffer.removeFirst(end + 1)
                let object = try JSONSerialization.jsonObject(with: message)
                guard let dictionary = object as? [String: Any] else { throw Failure(description: "not an object") }
                return dictionary
            }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { throw Failure(description: "timed out waiting for a reply") }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, Int32(left * 1000) + 1) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && errno == ECONNRESET { return nil }
            guard n >= 0 else { throw Failure(description: "read: errno \(errno)") }
            if n == 0 {
                guard buffer.isEmpty else { throw Failure(description: "EOF inside a message") }
                return nil
            }
            buffer += chunk[..<n]
        }
    }

    /// Whether the server closes the connection within `timeout` (nothing more to read).
    public func closedByServer(timeout: Double = 5) -> Bool {
        do {
            return try receive(timeout: timeout) == nil
        } catch {
            return false
        }
    }

    /// A call with "more": every reply up to the one that does not continue.
    public func callMore(_ method: String, _ parameters: [String: Any], timeout: Double = 5) throws -> [[String: Any]] {
        let body = try JSONSerialization.data(withJSONObject: ["method": method, "parameters": parameters, "more": true])
        try send(raw: Array(body) + [0])
        var replies: [[String: Any]] = []
        while let reply = try receive(timeout: timeout) {
            replies.append(reply)
            if reply["continues"] as? Bool != true { break }
        }
        return replies
    }

    /// Sends a call without waiting for its reply.
    public func start(_ method: String, _ parameters: [String: Any]) throws {
        let body = try JSONSerialization.data(withJSONObject: ["method": method, "parameters": parameters])
        try send(raw: Array(body) + [0])
    }

    public func call(_ method: String, _ parameters: [String: Any] = [:], timeout: Double = 5) throws -> [String: Any] {
        let body = try JSONSerialization.data(withJSONObject: ["method": method, "parameters": parameters])
        try send(raw: Array(body) + [0])
        guard let reply = try receive(timeout: timeout) else { throw Failure(description: "closed without a reply") }
        return reply
    }
}

extension Dictionary where Key == String, Value == Any {
    public var errorName: String? { self["error"] as? String }
    public var parameters: [String: Any] { self["parameters"] as? [String: Any] ?? [:] }
}

/// Runs blocking test code (socket waits) on a thread of its own, never on the cooperative pool:
/// an in-process server's scans run as tasks on that pool, which a blocked test would starve.
public func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}

/// Polls (blocking) until `condition` holds or `seconds` pass.
public func waitUntil(seconds: Int = 5, _ condition: () -> Bool) -> Bool {
    for _ in 0..<(seconds * 100) {
        if condition() { return true }
        usleep(10_000)
    }
    return condition()
}
