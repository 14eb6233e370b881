public import AuthCore
public import Fingerprint
import Synchronization
import SystemBus

/// fprintd (`net.reactivated.Fprint`) on the system bus: its default device, one user's fingers, and
/// one verify at a time. GIO is loaded, and the bus connected, only at the first question, so a
/// command that asks nothing of fprintd maps no GLib. One private connection per client: a claim
/// belongs to the connection that made it, and fprintd releases it if the connection goes.
///
/// Every blocking call runs on a thread of its own, never on Swift's cooperative pool; every call
/// has a time limit, so a hung fprintd is an error, never a hang.
public final class FprintdClient: Sendable {
    static let service = "net.reactivated.Fprint"
    static let manager = "/net/reactivated/Fprint/Manager"
    static let deviceInterface = "net.reactivated.Fprint.Device"

    /// Whose fingers: "" for the caller's own (fprintd asks the bus who calls); a name needs polkit's
    /// `setusername` (fingerlockd for a vault's owner).
    public let username: String
    let callTimeout: Duration
    /// The bus to talk on; nil for the system bus (`DBUS_SYSTEM_BUS_ADDRESS`, else the standard socket).
    let busAddress: String?
    /// How long a `Claim` refused with AlreadyInUse is tried again before the reader counts as busy.
    let claimPatience: Duration
    /// The connection, shared by the clients ``asking(for:)`` made from this one.
    private let state: Shared
    /// What ``prepare()`` asked ahead about this client's user, each answer taken once: this
    /// client's own, never shared with another user's.
    private let preparation = Mutex<Task<PreparedAnswers, Never>?>(nil)

    private struct State: ~Copyable {
        var gio: Result<GioLibrary, SystemBusError>?
        var bus: LockedBus?
        var devicePath: String?
    }

    /// The device and the fingers as ``prepare()`` found them: the first question for each takes
    /// it; later ones ask fprintd again. nil where asking failed (the question asks, and says why).
    final class PreparedAnswers: Sendable {
        /// How old an answer may be when it is taken: the fingers decide whether a touch may unlock
        /// (the accepted set), so a command that waited (at a passcode prompt) asks fprintd again.
        static let freshness = Duration.seconds(2)

        private let device: Mutex<FprintdDevice?>
        private let fingers: Mutex<[Finger]?>
        private let asked = ContinuousClock.now

        init(device: FprintdDevice?, fingers: [Finger]?) {
            self.device = Mutex(device)
            self.fingers = Mutex(fingers)
        }

        func takeDevice() -> FprintdDevice? { device.withLock { $0.take() }.flatMap { fresh ? $0 : nil } }
        func takeFingers() -> [Finger]? { fingers.withLock { $0.take() }.flatMap { fresh ? $0 : nil } }
        private var fresh: Bool { ContinuousClock.now - asked < Self.freshness }
    }

    private final class Shared: Sendable {
        let state = Mutex(State())
    }

    public init(
        username: String = "", busAddress: String? = nil, callTimeout: Duration = .seconds(5), claimPatience: Duration = .seconds(2)
    ) {
        self.username = username
        self.busAddress = busAddress
        self.callTimeout = callTimeout
        self.claimPatience = claimPatience
        state = Shared()
    }

    private init(_ other: FprintdClient, username: String) {
        self.username = username
        busAddress = other.busAddress
        callTimeout = other.callTimeout
        claimPatience = other.claimPatience
        state = other.state
    }

    /// The same connection, asking about `username`'s fingers (fingerlockd for a vault's owner: one
    /// connection for every user keeps fprintd running, so a touch does not wait for it to start).
    /// Verifies through it must not overlap (fingerlockd's scans take turns): a claim is the
    /// connection's, and one verify's signals go to one inbox.
    public func asking(for username: String) -> FprintdClient {
        FprintdClient(self, username: username)
    }

    // MARK: Questions

    /// fprintd's default device and its properties.
    public func device() async throws -> FprintdDevice {
        if let device = await prepared()?.takeDevice() { return device }
        return try await DetachedThread.run { [self] in try describeDevice() }
    }

    /// The device's description, asked now.
    private func describeDevice() throws -> FprintdDevice {
        let bus = try connection()
        let path = try defaultDevice(bus)
        // All of them in one round trip.
        let properties = try self.properties(bus, path)
        // fprintd's word, shown in messages and kept in vaults: no control characters, not overlong.
        let named = String(
            String.UnicodeScalarView(
                (properties["name"]?.string ?? "").unicodeScalars.filter {
                    $0.properties.generalCategory != .control && $0.properties.generalCategory != .format
                }
            ).prefix(128))
        let name = named.isEmpty ? "fprintd's reader" : named
        let scanType: ScanType = properties["scan-type"]?.string == "swipe" ? .swipe : .press
        let stages = Int(properties["num-enroll-stages"]?.int32 ?? 0)
        return FprintdDevice(name: name, scanType: scanType, enrollStages: stages)
    }

    /// The user's fingers enrolled with fprintd on its default device; empty when none.
    public func enrolledFingers() async throws -> [Finger] {
        if let fingers = await prepared()?.takeFingers() { return fingers }
        return try await DetachedThread.run { [self] in try listFingers() }
    }

    public func fingersNow() throws -> AcceptedFingers {
        AcceptedFingers(device: try describeDevice().name, fingers: try listFingers())
    }

    /// The fingers, asked now.
    private func listFingers() throws -> [Finger] {
        let bus = try connection()
        let path = try defaultDevice(bus)
        do {
            let reply = try bus.call(path, "ListEnrolledFingers", [.string(username)], replyType: "(as)")
            return (reply.child(0)?.strings ?? []).compactMap(Finger.init(name:)).sorted()
        } catch let error as BusCallError where error.name == FprintdError.prefix + "NoEnrolledPrints" {
            return []
        } catch let error as BusCallError {
            forgetDevice(after: error)
            throw FprintdError.map(error, during: "list your fingers")
        }
    }

    // MARK: Verify

    /// One verify of `finger` (nil: `any`) up to fprintd's first answer; see ``FprintdFingers``.
    /// The claim is released in every case, as soon as the answer (or the error, the timeout, the
    /// cancellation) is there, so a lock screen or sudo can take the reader right after.
    public func verify(_ finger: Finger?, timeout: Duration, fingerRead: @escaping @Sendable () -> Void) async throws
        -> FprintdVerifyResult
    {
        let (bus, path, owner) = try await deviceAndOwner()
        try await claim(bus, path)
        // Opened only now: fprintd's signals go to every listener, and while Claim waited for a lock
        // screen's or sudo's verify to end, that verify's answer was no answer to this one.
        let inbox = bus.openInbox(from: owner)
        defer { bus.closeInbox() }
        do {
            try await DetachedThread.run {
                do {
                    _ = try bus.call(path, "VerifyStart", [.string(finger?.rawValue ?? "any")], replyType: "()")
                } catch let error as BusCallError {
                    throw FprintdError.map(error, during: "verify", answeredBefore: true)
                }
            }
            let result = try await answer(from: inbox, path: path, timeout: timeout, fingerRead: fingerRead)
            await release(bus, path, stopping: "VerifyStop")
            return result
        } catch {
            await release(bus, path, stopping: "VerifyStop")
            throw error
        }
    }

    /// Waits for the verify's answer on `path`.
    private func answer(
        from inbox: AsyncStream<BusSignal>, path: String, timeout: Duration, fingerRead: @escaping @Sendable () -> Void
    ) async throws -> FprintdVerifyResult {
        try await Self.within(timeout) {
            var selected: Finger?
            for await signal in inbox {
                if signal.member == "NameOwnerChanged" {
                    throw FprintdError.stopped
                }
                guard signal.path == path, signal.interface == Self.deviceInterface else { continue }
                if signal.member == "VerifyFingerSelected" {
                    selected = signal.string(0).flatMap(Finger.init(name:))
                    continue
                }
                guard signal.member == "VerifyStatus", let status = signal.string(0) else { continue }
                switch status {
                case "verify-match":
                    fingerRead()
                    return .match(selected: selected)
                case "verify-no-match":
                    fingerRead()
                    return .noMatch(checked: selected)
                case "verify-retry-scan": return .retry(.general)
                case "verify-swipe-too-short": return .retry(.tooShort)
                case "verify-finger-not-centered": return .retry(.centerFinger)
                case "verify-remove-and-retry": return .retry(.removeFinger)
                case "verify-disconnected":
                    throw FingerprintError(.unplugged, "The reader was disconnected from fprintd during the scan.")
                default:
                    throw FingerprintError(.deviceError, "fprintd's reader failed during the scan (\(status)).")
                }
            }
            try Task.checkCancellation()
            throw FingerprintError(.deviceError, "fprintd's answer never came.")
        }
    }

    /// `body`'s answer, unless `timeout` passes first (a scan's time limit: `timedOut`); `body` is
    /// cancelled then, as it is when the caller is.
    static func within<T: Sendable>(_ timeout: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: timeout)
                let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
                throw FingerprintError.timedOut(after: seconds)
            }
            defer { group.cancelAll() }
            return try await group.next()!
        }
    }

    /// `Claim`, tried again for `claimPatience` while another client holds the reader (a lock screen
    /// does the same); never taken as already ours.
    func claim(_ bus: LockedBus, _ path: String) async throws {
        let deadline = ContinuousClock.now + claimPatience
        var pause = Duration.milliseconds(100)
        while true {
            do {
                try await DetachedThread.run { [username] in
                    _ = try bus.call(path, "Claim", [.string(username)], replyType: "()", timeout: Self.claimTimeout)
                }
                return
            } catch let error as BusCallError where error.name == FprintdError.prefix + "AlreadyInUse" {
                guard ContinuousClock.now + pause < deadline else {
                    throw FprintdError.map(error, during: "claim the reader", answeredBefore: true)
                }
                try await Task.sleep(for: pause)
                pause *= 2
            } catch let error as BusCallError {
                // An answer that never came may still be a claim granted later (a slow sensor
                // opening): it is released, or the connection (fingerlockd's, kept open) would hold
                // the reader from the lock screen and sudo for good. fprintd ignores a Release
                // without a claim.
                if !error.name.hasPrefix(FprintdError.prefix) { bus.send(path, "Release") }
                // The device was looked up moments ago: fprintd gone now has stopped.
                throw FprintdError.map(error, during: "claim the reader", answeredBefore: true)
            }
        }
    }

    /// How long one `Claim` may take: fprintd opens the device then, which some sensors take seconds for.
    static let claimTimeout = Duration.seconds(15)

    /// `VerifyStop` or `EnrollStop` (`stopping`, when one was started) and `Release`, whatever
    /// happened: errors here change nothing (fprintd also releases a claim whose connection goes
    /// away). Runs even in a cancelled task.
    func release(_ bus: LockedBus, _ path: String, stopping: String?) async {
        _ = try? await DetachedThread.run {
            // The stop's answer is not waited for: fprintd handles it before the Release sent after
            // it, whose answer says the reader is free.
            if let stopping { bus.send(path, stopping) }
            _ = try? bus.call(path, "Release", [], replyType: "()")
        }
    }

    /// Asks ahead, on a thread of its own, what a touch asks first (GIO loaded, the bus connected,
    /// the device and the user's fingers), for a command that opens its vault meanwhile: the
    /// questions then take these answers, once each. Errors are left to the questions, which ask
    /// again. Once per client.
    public func prepare() {
        preparation.withLock { preparation in
            guard preparation == nil else { return }
            preparation = Task { [self] in
                let device = try? await DetachedThread.run { [self] in try describeDevice() }
                let fingers = try? await DetachedThread.run { [self] in try listFingers() }
                return PreparedAnswers(device: device, fingers: fingers)
            }
        }
    }

    /// After an operation that changes what fprintd would answer (an enrollment).
    func forgetPreparedAnswers() {
        preparation.withLock { $0 = nil }
    }

    /// The answers ``prepare()`` asked for, once they are there (nil when it was not called).
    private func prepared() async -> PreparedAnswers? {
        guard let task = preparation.withLock({ $0 }) else { return nil }
        return await task.value
    }

    // MARK: The connection

    /// The connection, made at the first question, with the signals a verify waits for.
    func connection() throws -> LockedBus {
        try state.state.withLock { state in
            if let bus = state.bus { return bus }
            let gio = state.gio ?? GioLibrary.open()
            state.gio = gio
            let connection: SystemBusConnection
            do {
                connection = try SystemBusConnection(gio: gio, address: busAddress, callTimeout: callTimeout)
            } catch let error as SystemBusError {
                switch error {
                case .absent(let reason), .failed(let reason):
                    throw FingerprintError(.noReader, "fprintd cannot be asked: \(reason)")
                }
            }
            let bus = LockedBus(connection)
            bus.watch()
            state.bus = bus
            return bus
        }
    }

    /// What a verify or an enrollment works with: the connection, fprintd's device and fprintd's
    /// unique name (whose signals alone are its answers).
    func deviceAndOwner() async throws -> (LockedBus, String, String) {
        try await DetachedThread.run { [self] in
            let bus = try connection()
            let path = try defaultDevice(bus)
            return (bus, path, try fprintdOwner(bus))
        }
    }

    /// fprintd's unique name on the bus (`GetNameOwner`), which its signals must come from. fprintd
    /// not running (it stopped since its device was looked up) is started by asking for its device
    /// again.
    func fprintdOwner(_ bus: LockedBus) throws -> String {
        func ask() throws -> String {
            let reply = try bus.call(
                "/org/freedesktop/DBus", "GetNameOwner", [.string(Self.service)], replyType: "(s)",
                interface: "org.freedesktop.DBus", destination: "org.freedesktop.DBus")
            guard let owner = reply.child(0)?.string, !owner.isEmpty else {
                throw FingerprintError(.deviceError, "The bus named no owner of net.reactivated.Fprint.")
            }
            return owner
        }
        do {
            return try ask()
        } catch is BusCallError {
            state.state.withLock { $0.devicePath = nil }
            _ = try defaultDevice(bus)
            do {
                return try ask()
            } catch let error as BusCallError {
                throw FprintdError.map(error, during: "find fprintd on the bus", answeredBefore: true)
            }
        }
    }

    func defaultDevice(_ bus: LockedBus) throws -> String {
        if let known = state.state.withLock({ $0.devicePath }) { return known }
        do {
            let reply = try bus.call(
                Self.manager, "GetDefaultDevice", [], replyType: "(o)", interface: "net.reactivated.Fprint.Manager")
            guard let path = reply.child(0)?.string else { throw FingerprintError(.deviceError, "fprintd named no device.") }
            state.state.withLock { $0.devicePath = path }
            return path
        } catch let error as BusCallError {
            throw FprintdError.map(error, during: "find its reader")
        }
    }

    /// The device's properties by name (`GetAll`).
    private func properties(_ bus: LockedBus, _ path: String) throws -> [String: BusVariant] {
        do {
            let reply = try bus.call(
                path, "GetAll", [.string(Self.deviceInterface)], replyType: "(a{sv})", interface: "org.freedesktop.DBus.Properties")
            guard let all = reply.child(0) else { return [:] }
            var properties: [String: BusVariant] = [:]
            for index in 0..<all.count {
                guard let entry = all.child(index), let name = entry.child(0)?.string, let value = entry.child(1)?.unboxed else { continue }
                properties[name] = value
            }
            return properties
        } catch let error as BusCallError {
            forgetDevice(after: error)
            throw FprintdError.map(error, during: "describe its reader")
        }
    }

    /// A device path that no longer answers (the reader was unplugged and came back as another
    /// device, or fprintd restarted) is asked for again at the next question: a client kept for
    /// long (fingerlockd's) must not keep asking a device that is gone.
    private func forgetDevice(after error: BusCallError) {
        guard error.name.hasPrefix("org.freedesktop.DBus.Error.") || error.serviceMissing else { return }
        state.state.withLock { $0.devicePath = nil }
    }
}

/// The client is the fprintd that AuthCore's ``FprintdFingerSource`` asks.
extension FprintdClient: FprintdFingers {}
