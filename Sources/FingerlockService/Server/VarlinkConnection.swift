import FingerlockProtocol
import FoundationEssentials
import Logging
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One client connection, served on its own thread: reads NUL-terminated messages within the
/// limits, answers each in order (a scan runs in a task while the thread watches for the client
/// hanging up), and closes on EOF, a timeout, an oversized message or shutdown.
/// Buffers that held messages (which may carry passcode-derived values and keys) are zeroed.
final class VarlinkConnection: Sendable {
    let descriptor: Int32
    let peer: PeerCredentials
    let server: VarlinkServer

    init(descriptor: Int32, peer: PeerCredentials, server: VarlinkServer) {
        self.descriptor = descriptor
        self.peer = peer
        self.server = server
    }

    private enum Wait { case ready, timedOut, shutdown, failed }

    func serve() {
        let limits = server.limits
        var buffer = [UInt8]()
        buffer.reserveCapacity(4096)
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        defer {
            Zeroing.zero(&buffer)
            Zeroing.zero(&chunk)
            close(descriptor)
        }
        var idleSince = ContinuousClock.now
        var messageStarted: ContinuousClock.Instant?
        while true {
            let deadline = messageStarted.map { $0 + limits.messageTimeout } ?? idleSince + limits.idleTimeout
            switch wait(events: Int16(POLLIN), until: deadline) {
            case .ready: break
            case .timedOut:
                server.logger.debug("connection timed out", metadata: ["uid": "\(peer.uid)"])
                return
            case .shutdown, .failed: return
            }
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EAGAIN || errno == EINTR { continue }
                return
            }
            // EOF: the client is done (or half-closed after its last call, already answered).
            if count == 0 { return }
            // The buffer never holds a whole message between reads, so only new bytes can end one:
            // a client trickling a large message byte by byte costs one scan of each byte, not of
            // the whole buffer at every read.
            let endsAMessage = chunk[..<count].contains(0)
            buffer.append(contentsOf: chunk[..<count])
            var answered = false
            while endsAMessage, let end = buffer.firstIndex(of: 0) {
                guard end <= limits.maximumMessageSize else {
                    refuseOversized()
                    return
                }
                var message = Data(buffer[..<end])
                buffer.withUnsafeMutableBytes { explicit_bzero($0.baseAddress!, end + 1) }
                buffer.removeFirst(end + 1)
                answered = true
                let call = server.core.start(message: message, peer: peer)
                Zeroing.zero(&message)
                switch call {
                case .reply(var reply?):
                    let sent = send(reply, until: ContinuousClock.now + limits.writeTimeout)
                    Zeroing.zero(&reply)
                    guard sent else { return }
                case .reply(nil): break
                case .long(let long):
                    guard run(long) else { return }
                }
                // A call under way finishes; no new one starts once shutdown began.
                if isShuttingDown { return }
            }
            if buffer.count > limits.maximumMessageSize {
                refuseOversized()
                return
            }
            idleSince = ContinuousClock.now
            // A partial message's clock starts with its first byte.
            if buffer.isEmpty || answered { messageStarted = nil }
            if !buffer.isEmpty { messageStarted = messageStarted ?? idleSince }
        }
    }

    /// Runs a long call (a scan) in a task while this thread watches the connection: the client
    /// hanging up (its process exited or was killed, or Ctrl-C closed the socket) or the service
    /// stopping cancels the task, and so the scan, at once. Only a full hang-up counts (POLLHUP): a
    /// client that half-closes after sending its call (shutdown(SHUT_WR), as some Varlink clients
    /// do) still waits for its answer. Returns whether the connection can go on.
    private func run(_ call: LongCall) -> Bool {
        var done: [Int32] = [-1, -1]
        guard pipe(&done) == 0 else { return false }
        defer {
            close(done[0])
            close(done[1])
        }
        let finished = FinalReply()
        let writeTimeout = server.limits.writeTimeout
        let signal = done[1]
        let task = Task { [self] in
            let reply = await call.run { data in self.send(data, until: ContinuousClock.now + writeTimeout) }
            finished.set(reply)
            var byte: UInt8 = 1
            _ = write(signal, &byte, 1)
        }
        var hungUp = false
        var cancelled = false
        while true {
            var fds = [
                pollfd(fd: done[0], events: Int16(POLLIN), revents: 0),
                pollfd(fd: descriptor, events: 0, revents: 0),
                pollfd(fd: server.wakeup.read, events: Int16(POLLIN), revents: 0),
            ]
            // Once cancelled, only the task's end is waited for.
            let ready = poll(&fds, cancelled ? 1 : 3, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                task.cancel()
                cancelled = true
                continue
            }
            if fds[0].revents != 0 { break }
            if !cancelled && fds[1].revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 {
                server.logger.info("client went away: its call is cancelled", metadata: ["uid": "\(peer.uid)"])
                hungUp = true
                cancelled = true
                task.cancel()
            } else if !cancelled && fds[2].revents != 0 {
                cancelled = true
                task.cancel()
            }
        }
        guard !hungUp, var reply = finished.take() else { return false }
        defer { Zeroing.zero(&reply) }
        return send(reply, until: ContinuousClock.now + server.limits.writeTimeout)
    }

    private var isShuttingDown: Bool {
        var fds = pollfd(fd: server.wakeup.read, events: Int16(POLLIN), revents: 0)
        return poll(&fds, 1, 0) > 0
    }

    private func refuseOversized() {
        server.oversizedMessages.record(uid: peer.uid, metadata: [:])
        let reply = VarlinkReply.encode(
            VarlinkError(.messageTooLarge, ["limit": .int(server.limits.maximumMessageSize)]))
        _ = send(reply, until: ContinuousClock.now + .seconds(1))
    }

    private func send(_ data: Data, until deadline: ContinuousClock.Instant) -> Bool {
        var offset = 0
        while offset < data.count {
            let written = data.withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
            }
            if written > 0 {
                offset += written
                continue
            }
            if written < 0 && (errno == EAGAIN || errno == EINTR) {
                guard wait(events: Int16(POLLOUT), until: deadline) == .ready else { return false }
                continue
            }
            return false
        }
        return true
    }

    private func wait(events: Int16, until deadline: ContinuousClock.Instant) -> Wait {
        while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return .timedOut }
            let milliseconds = Int32(
                clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
            // While writing, shutdown does not interrupt: the reply to a call under way is sent.
            let watchShutdown = events == Int16(POLLIN)
            var fds = [
                pollfd(fd: descriptor, events: events, revents: 0),
                pollfd(fd: server.wakeup.read, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&fds, watchShutdown ? 2 : 1, milliseconds)
            if ready < 0 {
                if errno == EINTR { continue }
                return .failed
            }
            if ready == 0 { continue }
            if watchShutdown && fds[1].revents != 0 { return .shutdown }
            if fds[0].revents != 0 { return .ready }
        }
    }
}

/// The last reply of a long call, handed from its task to the connection's thread.
private final class FinalReply: Sendable {
    private let reply = Mutex<Data?>(nil)

    func set(_ data: Data?) { reply.withLock { $0 = data } }

    func take() -> Data? {
        reply.withLock { value in
            defer { value = nil }
            return value
        }
    }
}
