import FingerlockProtocol
import FoundationEssentials
public import Logging
import Synchronization
import SystemBus

#if canImport(Glibc)
    import Glibc
#endif

/// Accepts connections on the listening socket and serves each on its own thread with blocking
/// calls bounded by `poll` deadlines: a slow or silent client holds only its own thread, and the
/// per-account and total connection limits (`ConnectionCounts`) keep idle connections from locking
/// others out. An account is a user with all their subordinate uids, as `core`'s `UIDAccounts` say.
///
/// One pipe wakes every thread for shutdown: `stop()` writes to it, the accept loop ends, each
/// connection finishes the call it is running (replies) and closes.
public final class VarlinkServer: Sendable {
    let listener: ListeningSocket
    let core: ServiceCore
    let limits: ServiceLimits
    let logger: Logger
    /// Refused connections and oversized messages, logged with a rate limit.
    let refusedConnections: RefusalLog
    let oversizedMessages: RefusalLog
    let now: @Sendable () -> ContinuousClock.Instant
    /// [read end, write end]; the read end becomes readable for good once shutdown starts.
    let wakeup: (read: Int32, write: Int32)

    struct Counts {
        var connections = ConnectionCounts()
        var acceptLoopRunning = false
        var stopping = false
    }

    let counts = Mutex(Counts())

    /// - Parameter now: the clock of the refusal log's windows (monotonic; tests move it by hand).
    public init(
        listener: ListeningSocket, core: ServiceCore, limits: ServiceLimits = ServiceLimits(), logger: Logger,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }
    ) throws {
        self.listener = listener
        self.core = core
        self.limits = limits
        self.logger = logger
        self.now = now
        refusedConnections = RefusalLog(
            logger: logger, level: .warning, message: "connection refused: too many", summaryNoun: "connections refused",
            window: limits.refusalLogWindow, loggedPerWindow: limits.refusalsLoggedPerWindow, now: now)
        oversizedMessages = RefusalLog(
            logger: logger, level: .notice, message: "message too large", summaryNoun: "messages refused as too large",
            window: limits.refusalLogWindow, loggedPerWindow: limits.refusalsLoggedPerWindow, now: now)
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else {
            throw ListeningSocket.Failure(description: "cannot create a pipe (errno \(errno)).")
        }
        for fd in fds { Self.configure(fd) }
        wakeup = (fds[0], fds[1])
    }

    /// Starts the accept loop on its own thread.
    public func start() {
        counts.withLock { $0.acceptLoopRunning = true }
        DetachedThread.start { [self] in
            acceptLoop()
            counts.withLock { $0.acceptLoopRunning = false }
        }
    }

    /// Stops accepting, lets running calls finish, closes every connection, and waits (at most
    /// `timeout`) for all of it. Returns whether everything ended in time.
    @discardableResult
    public func stop(timeout: Duration = .seconds(5)) async -> Bool {
        let first = counts.withLock { counts in
            defer { counts.stopping = true }
            return !counts.stopping
        }
        guard first else { return true }
        var byte: UInt8 = 1
        _ = write(wakeup.write, &byte, 1)
        let deadline = ContinuousClock.now + timeout
        // Checked once more after the deadline: a sleep that resumed late (a busy cooperative pool)
        // must not report connections that closed meanwhile as stuck.
        var last = false
        while !last {
            last = ContinuousClock.now >= deadline
            let done = counts.withLock { $0.connections.total == 0 && !$0.acceptLoopRunning }
            if done {
                refusedConnections.flush(force: true)
                oversizedMessages.flush(force: true)
                listener.stopListening()
                Glibc.close(wakeup.read)
                Glibc.close(wakeup.write)
                return true
            }
            if !last { try? await Task.sleep(for: .milliseconds(10)) }
        }
        // A thread is stuck in a call; leave its descriptors alone and only stop listening.
        refusedConnections.flush(force: true)
        oversizedMessages.flush(force: true)
        listener.stopListening()
        logger.warning("connections still open at shutdown")
        return false
    }

    /// The number of open connections (for tests and the log).
    public var openConnections: Int { counts.withLock { $0.connections.total } }

    private func acceptLoop() {
        while true {
            var fds = [
                pollfd(fd: listener.descriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wakeup.read, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&fds, 2, summaryTimeout())
            if ready < 0 {
                if errno == EINTR { continue }
                logger.error("poll on the listening socket failed", metadata: ["errno": "\(errno)"])
                return
            }
            if ready == 0 {
                refusedConnections.flush()
                oversizedMessages.flush()
                continue
            }
            if fds[1].revents != 0 { return }
            guard fds[0].revents != 0 else { continue }
            let fd = accept(listener.descriptor, nil, nil)
            if fd < 0 {
                // EMFILE and friends: back off briefly instead of spinning.
                if errno != EAGAIN && errno != EINTR && errno != ECONNABORTED { usleep(10_000) }
                continue
            }
            admit(fd)
        }
    }

    /// Milliseconds until a refusal summary is due (at least 1, at most a minute), or -1 (none).
    private func summaryTimeout() -> Int32 {
        let due = [refusedConnections.summaryDue, oversizedMessages.summaryDue].compactMap { $0 }.min()
        guard let due else { return -1 }
        let left = due - now()
        let milliseconds = left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000
        return Int32(clamping: min(max(milliseconds, 1), 60_000))
    }

    /// Close-on-exec and non-blocking (accept4 and pipe2 are not in Swift's Glibc module; the
    /// service never execs, so the moment without FD_CLOEXEC is harmless).
    static func configure(_ fd: Int32) {
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    private func admit(_ fd: Int32) {
        Self.configure(fd)
        guard let peer = PeerCredentials.of(socket: fd) else {
            Glibc.close(fd)
            return
        }
        // Looked up outside the lock: it may read /etc/subuid or ask the user database.
        let account = core.dependencies.accounts.account(of: peer.uid)
        let refusal = counts.withLock { $0.connections.admit(account, limits: limits) }
        if let limit = refusal {
            refusedConnections.record(uid: peer.uid, metadata: ["limit": "\(limit)", "account": "\(account)"])
            let reply = VarlinkReply.encode(VarlinkError(.tooManyConnections, ["limit": .int(limit)]))
            _ = reply.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            Glibc.close(fd)
            return
        }
        let connection = VarlinkConnection(descriptor: fd, peer: peer, server: self)
        DetachedThread.start {
            connection.serve()
            self.counts.withLock { $0.connections.release(account) }
        }
    }
}
