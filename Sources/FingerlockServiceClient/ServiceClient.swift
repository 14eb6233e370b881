public import FingerlockProtocol
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A blocking Varlink client of `fingerlockd` for the CLI: one connection, one call at a time, every
/// wait bounded by `timeout`. Optionally it checks who answers (the service's uid from SO_PEERCRED),
/// so a process squatting the socket path cannot collect passcode-derived values.
///
/// Before the first call that carries a passcode-derived value, a key or a proof, the connection
/// asks `org.varlink.service.GetInfo` and goes on only if fingerlockd answers, speaking this
/// client's protocol version: the socket owner's uid says who listens, not what it is, and a
/// different program of that user, or a fingerlockd of an incompatible version, must not receive
/// them. Once per connection, and only on connections that carry such values.
///
/// Buffers that carried messages are zeroed; the decoded replies (which may hold a key, base64) are
/// the caller's to convert into a `SymmetricKey` and drop.
public final class ServiceClient {
    private let fd: Int32
    private let timeout: Duration
    private var buffer = [UInt8]()
    /// GetInfo said this connection reaches fingerlockd speaking `ServiceInterface.protocolVersion`.
    private var confirmed = false
    /// The uid of whoever listens on the socket, from SO_PEERCRED (nil if the kernel did not say).
    public let peerUID: UInt32?

    public init(socketPath: String, timeout: Duration = .seconds(10), expectedServiceUID: UInt32? = nil)
        throws(ServiceClientError)
    {
        self.timeout = timeout
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = Array(socketPath.utf8)
        guard !path.isEmpty, path.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw .unreachable("\(socketPath) cannot be a socket path")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path) }
        // A local descriptor until every check passed: self is not fully initialised before the
        // end, so a refusal closes it here and deinit never closes it a second time.
        let socketFD = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socketFD >= 0 else { throw .unreachable("cannot create a socket (\(String(cString: strerror(errno))))") }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socketFD, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            let error = errno
            close(socketFD)
            throw .unreachable("cannot connect to \(socketPath) (\(String(cString: strerror(error))))")
        }
        // struct ucred: pid, uid, gid (three 32-bit fields).
        var raw = (UInt32(0), UInt32(0), UInt32(0))
        var length = socklen_t(MemoryLayout.size(ofValue: raw))
        let peer = getsockopt(socketFD, SOL_SOCKET, SO_PEERCRED, &raw, &length) == 0 ? raw.1 : nil
        if let expectedServiceUID, peer != expectedServiceUID {
            close(socketFD)
            throw .unreachable("\(socketPath) is not served by the service user (uid \(expectedServiceUID))")
        }
        fd = socketFD
        peerUID = peer
    }

    deinit {
        buffer.withUnsafeMutableBytes { if let base = $0.baseAddress { explicit_bzero(base, $0.count) } }
        close(fd)
    }

    public func registerVault(_ vault: String) throws(ServiceClientError) -> VarlinkParameters.RegisterVaultReply {
        try call(.registerVault, VarlinkParameters.Vault(vault: vault))
    }

    public func sealPasscodeSlot(_ parameters: VarlinkParameters.SealPasscodeSlot) throws(ServiceClientError)
        -> VarlinkParameters.SealPasscodeSlotReply
    {
        try call(.sealPasscodeSlot, parameters)
    }

    public func unlockWithPasscode(_ parameters: VarlinkParameters.UnlockWithPasscode) throws(ServiceClientError)
        -> VarlinkParameters.UnlockWithPasscodeReply
    {
        try call(.unlockWithPasscode, parameters)
    }

    /// Forgets the key of `vault`, or (nil) of every vault of the caller's.
    public func lock(_ vault: String?) throws(ServiceClientError) -> VarlinkParameters.LockReply {
        try call(.lock, VarlinkParameters.Lock(vault: vault))
    }

    public func releaseWithinReuseWindow(_ vault: String) throws(ServiceClientError)
        -> VarlinkParameters.ReleaseWithinReuseWindowReply
    {
        try call(.releaseWithinReuseWindow, VarlinkParameters.Vault(vault: vault))
    }

    public func status(_ vault: String) throws(ServiceClientError) -> VarlinkParameters.VaultStatus {
        let reply: VarlinkParameters.StatusReply = try call(.status, VarlinkParameters.Vault(vault: vault))
        return reply.status
    }

    public func forgetVault(_ proof: VarlinkParameters.PasscodeProof) throws(ServiceClientError) {
        let _: VarlinkParameters.Empty = try call(.forgetVault, proof)
    }

    /// One touch on the service's reader, in two halves. The first writes the call, which does not
    /// wait in practice: a small request on a new connection, and no GetInfo first (it carries no
    /// secret). Returns the reply's deadline, the client's timeout from now.
    /// With "more": the service then says when another user's request holds the reader.
    func sendUnlockWithTouch(_ parameters: VarlinkParameters.UnlockWithTouch) throws(ServiceClientError)
        -> ContinuousClock.Instant
    {
        try start(qualified: ServiceInterface.Method.unlockWithTouch.qualifiedName, parameters, more: true)
    }

    /// The second half: the reply, which comes after the scan (blocks until then, or `deadline`);
    /// `canceller` ends the wait from another thread (the service then cancels the scan). A reply
    /// that says another user's request holds the reader goes to `waiting`, and the wait goes on.
    func unlockWithTouchReply(
        until deadline: ContinuousClock.Instant, waiting: (ServiceInterface.ReaderHolder) -> Void = { _ in }
    ) throws(ServiceClientError) -> VarlinkParameters.UnlockWithTouchReply {
        while true {
            let (reply, continues): (VarlinkParameters.UnlockWithTouchReply, Bool) = try receiveReply(
                to: ServiceInterface.Method.unlockWithTouch.qualifiedName, until: deadline)
            guard continues else { return reply }
            guard let holder = reply.busyWith else {
                throw .protocolViolation("a touch reply that continues says nothing of the reader")
            }
            waiting(holder)
        }
    }

    public func setVaultPolicy(_ parameters: VarlinkParameters.SetVaultPolicy) throws(ServiceClientError)
        -> VarlinkParameters.SetVaultPolicyReply
    {
        try call(.setVaultPolicy, parameters)
    }

    /// Enrolls with "more": each stage goes to `stage` as it arrives (each within the timeout).
    public func enrollFinger(
        _ parameters: VarlinkParameters.EnrollFinger, stage: (VarlinkParameters.EnrollStage) -> Void
    ) throws(ServiceClientError) -> VarlinkParameters.EnrolledFinger {
        try send(call: ServiceInterface.Method.enrollFinger.qualifiedName, parameters, more: true)
        while true {
            let (reply, continues): (VarlinkParameters.EnrollFingerReply, Bool) = try receiveReply(
                to: ServiceInterface.Method.enrollFinger.qualifiedName, until: ContinuousClock.now + timeout)
            if let enrolled = reply.enrolled, !continues { return enrolled }
            guard continues, let step = reply.stage else {
                throw .protocolViolation("the enrollment ended without a finger")
            }
            stage(step)
        }
    }

    public func listFingers(_ vault: String) throws(ServiceClientError) -> [VarlinkParameters.EnrolledFinger] {
        let reply: VarlinkParameters.ListFingersReply = try call(.listFingers, VarlinkParameters.Vault(vault: vault))
        return reply.fingers
    }

    public func forgetFinger(_ parameters: VarlinkParameters.ForgetFinger) throws(ServiceClientError) {
        let _: VarlinkParameters.Empty = try call(.forgetFinger, parameters)
    }

    public func importFinger(_ parameters: VarlinkParameters.ImportFinger) throws(ServiceClientError)
        -> VarlinkParameters.EnrolledFinger
    {
        let reply: VarlinkParameters.ImportFingerReply = try call(.importFinger, parameters)
        return reply.enrolled
    }

    public func useFprintdFingers(_ parameters: VarlinkParameters.UseFprintdFingers) throws(ServiceClientError)
        -> VarlinkParameters.UseFprintdFingersReply
    {
        try call(.useFprintdFingers, parameters)
    }

    public func exportFinger(_ parameters: VarlinkParameters.ExportFinger) throws(ServiceClientError)
        -> VarlinkParameters.FingerTemplate
    {
        let reply: VarlinkParameters.ExportFingerReply = try call(.exportFinger, parameters)
        return reply.print
    }

    /// Ends a call under way from another thread: the connection is shut down, the waiting call
    /// fails as unreachable and the service, seeing the hang-up, cancels its scan. Valid while the
    /// client lives.
    public var canceller: Canceller { Canceller(fd: fd) }

    public struct Canceller: Sendable {
        let fd: Int32
        public func cancel() { _ = shutdown(fd, Int32(SHUT_RDWR)) }
    }

    public func info() throws(ServiceClientError) -> VarlinkParameters.Info {
        try call(qualified: "org.varlink.service.GetInfo", VarlinkParameters.Empty())
    }

    /// Asks GetInfo and refuses (`.notTheService`) unless the answer is fingerlockd's, offering
    /// `io.fingerlock.Service` at this client's protocol version.
    private func confirmService(until deadline: ContinuousClock.Instant) throws(ServiceClientError) {
        let method = "org.varlink.service.GetInfo"
        try send(call: method, VarlinkParameters.Empty(), more: false, until: deadline)
        let info: VarlinkParameters.Info
        do {
            info = try receiveReply(to: method, until: deadline).0
        } catch {
            switch error {
            case .service(let failure)
            where failure.name == ServiceInterface.ErrorName.tooManyConnections.qualifiedName:
                // A refusal before GetInfo was read says nothing about what listens, and nothing
                // secret went out: it is reported as what it is.
                throw error
            case .protocolViolation, .service:
                throw .notTheService("it does not answer GetInfo as fingerlockd does")
            case .unreachable, .timedOut, .notTheService:
                throw error
            }
        }
        guard let identity = ServiceIdentity(info) else {
            throw .notTheService("it says it is \(ServiceIdentity.describe(info)), not fingerlockd")
        }
        guard identity.protocolVersion == ServiceInterface.protocolVersion else {
            let theirs = identity.protocolVersion.map { "protocol \($0)" } ?? "no protocol version"
            throw .notTheService(
                "it is fingerlockd \(identity.version) speaking \(theirs); this fingerlock speaks protocol "
                    + "\(ServiceInterface.protocolVersion)")
        }
        confirmed = true
    }

    public func call<Parameters: Encodable, Reply: Decodable>(
        _ method: ServiceInterface.Method, _ parameters: Parameters
    )
        throws(ServiceClientError) -> Reply
    {
        try call(qualified: method.qualifiedName, parameters)
    }

    private struct Call<Parameters: Encodable>: Encodable {
        var method: String
        var parameters: Parameters
        var more: Bool?
    }

    private struct Reply<Parameters: Decodable>: Decodable {
        var parameters: Parameters?
        var error: String?
        var continues: Bool?
    }

    private struct ErrorReply: Decodable {
        var error: String
        var parameters: [String: VarlinkError.Value]?
    }

    private struct NamedError: Decodable {
        var error: String
    }

    private func call<Parameters: Encodable, Result: Decodable>(qualified method: String, _ parameters: Parameters)
        throws(ServiceClientError) -> Result
    {
        try receiveReply(to: method, until: start(qualified: method, parameters)).0
    }

    /// Writes a call that expects one reply; returns the reply's deadline (the timeout from now).
    private func start<Parameters: Encodable>(qualified method: String, _ parameters: Parameters, more: Bool = false)
        throws(ServiceClientError) -> ContinuousClock.Instant
    {
        let deadline = ContinuousClock.now + timeout
        try send(call: method, parameters, more: more, until: deadline)
        return deadline
    }

    private func send<Parameters: Encodable>(
        call method: String, _ parameters: Parameters, more: Bool,
        until deadline: ContinuousClock.Instant = ContinuousClock.now + .seconds(10)
    ) throws(ServiceClientError) {
        if !confirmed, ServiceInterface.Method(qualifiedName: method)?.carriesSecrets == true {
            try confirmService(until: deadline)
        }
        guard var message = try? JSONEncoder().encode(Call(method: method, parameters: parameters, more: more ? true : nil))
        else {
            throw .protocolViolation("cannot encode the call")
        }
        message.append(0)
        defer { message.resetBytes(in: message.indices) }
        try send(message, until: deadline)
    }

    /// The next reply and whether more follow.
    private func receiveReply<Result: Decodable>(to method: String, until deadline: ContinuousClock.Instant)
        throws(ServiceClientError) -> (Result, Bool)
    {
        var reply = try receive(until: deadline)
        defer { reply.resetBytes(in: reply.indices) }
        // The expected reply is decoded first: a failed decode builds an error with its coding path,
        // which the success path (a touch) should not pay for.
        guard let decoded = try? JSONDecoder().decode(Reply<Result>.self, from: reply), decoded.error == nil else {
            if let failure = try? JSONDecoder().decode(ErrorReply.self, from: reply) {
                throw .service(VarlinkError(name: failure.error, parameters: failure.parameters ?? [:]))
            }
            // An error whose parameters cannot be read still says which error it is.
            if let named = try? JSONDecoder().decode(NamedError.self, from: reply) {
                throw .service(VarlinkError(name: named.error, parameters: [:]))
            }
            throw .protocolViolation("the reply to \(method) is not what the interface says")
        }
        if let parameters = decoded.parameters { return (parameters, decoded.continues ?? false) }
        guard let empty = try? JSONDecoder().decode(Result.self, from: Data("{}".utf8)) else {
            throw .protocolViolation("the reply to \(method) has no parameters")
        }
        return (empty, decoded.continues ?? false)
    }

    private func send(_ data: Data, until deadline: ContinuousClock.Instant) throws(ServiceClientError) {
        var offset = 0
        while offset < data.count {
            let written = data.withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            }
            if written > 0 {
                offset += written
            } else if written < 0 && (errno == EAGAIN || errno == EINTR) {
                try wait(for: Int16(POLLOUT), until: deadline)
            } else {
                let error = errno
                // A service refusing the connection (TooManyConnections) writes its reply and closes
                // at once, so the write may fail before the reply is read: that reply is the answer.
                if error == EPIPE || error == ECONNRESET, let refusal = pendingError() { throw .service(refusal) }
                throw .unreachable("the service closed the connection (\(String(cString: strerror(error))))")
            }
        }
    }

    /// The error reply the service wrote before it closed, if one is already here whole.
    private func pendingError() -> VarlinkError? {
        var chunk = [UInt8](repeating: 0, count: 4096)
        defer { chunk.withUnsafeMutableBytes { explicit_bzero($0.baseAddress!, $0.count) } }
        while !buffer.contains(0) && buffer.count <= ServiceInterface.maximumMessageSize {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            buffer.append(contentsOf: chunk[..<count])
        }
        guard let end = buffer.firstIndex(of: 0),
            let failure = try? JSONDecoder().decode(ErrorReply.self, from: Data(buffer[..<end]))
        else { return nil }
        return VarlinkError(name: failure.error, parameters: failure.parameters ?? [:])
    }

    private func receive(until deadline: ContinuousClock.Instant) throws(ServiceClientError) -> Data {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        defer { chunk.withUnsafeMutableBytes { explicit_bzero($0.baseAddress!, $0.count) } }
        while true {
            if let end = buffer.firstIndex(of: 0) {
                let message = Data(buffer[..<end])
                buffer.withUnsafeMutableBytes { explicit_bzero($0.baseAddress!, end + 1) }
                buffer.removeFirst(end + 1)
                return message
            }
            guard buffer.count <= ServiceInterface.maximumMessageSize else {
                throw .protocolViolation("the service sent an oversized reply")
            }
            try wait(for: Int16(POLLIN), until: deadline)
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && (errno == EAGAIN || errno == EINTR) { continue }
            guard count > 0 else { throw .unreachable("the service closed the connection") }
            buffer.append(contentsOf: chunk[..<count])
        }
    }

    private func wait(for events: Int16, until deadline: ContinuousClock.Instant) throws(ServiceClientError) {
        while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { throw .timedOut }
            let milliseconds = Int32(
                clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
            var pfd = pollfd(fd: fd, events: events, revents: 0)
            let ready = poll(&pfd, 1, milliseconds)
            if ready > 0 { return }
            if ready < 0 && errno != EINTR { throw .unreachable("poll failed (\(String(cString: strerror(errno))))") }
        }
    }
}

/// Why a call to the service did not return a result.
public enum ServiceClientError: Error, Equatable, Sendable {
    /// No service at the socket, or it went away: the CLI says how to start it (exit 4).
    case unreachable(String)
    /// The service answered within its interface with an error (wrong passcode, delay, ...).
    case service(VarlinkError)
    /// The service did not answer in time.
    case timedOut
    /// The reply does not fit the interface (a different version, or not the service).
    case protocolViolation(String)
    /// GetInfo, asked before anything secret was sent, did not come from fingerlockd speaking this
    /// client's protocol version; nothing secret was sent. Says what answered instead.
    case notTheService(String)
}
