import FingerlockTestSupport
import Fingerprint
import FingerprintTestSupport
import Foundation
import Fprintd
import Synchronization
import Testing

/// The fprintd client against the real fprintd (Debian's) on a private bus, libfprint's
/// virtual_device behind it and dbusmock's polkit: what a desktop user's fingers look like through
/// fprintd, and every way a verify ends, with the claim released each time.
@Suite(.timed, .timeLimit(.minutes(2))) struct FprintdClientTests {
    /// A rig with the right index finger enrolled through fprintd (as root, for root).
    static func rigWithAFinger(_ id: String = "fl-right", finger: String = "right-index-finger") async throws -> FprintdRig {
        let rig = try await FprintdRig()
        try await rig.enroll(finger, scanning: id)
        return rig
    }

    /// How often fprintd's answer said the reader had a finger.
    final class Reads: Sendable {
        private let count = Mutex(0)
        func add() { count.withLock { $0 += 1 } }
        var value: Int { count.withLock { $0 } }
    }

    func client(_ rig: FprintdRig, claimPatience: Duration = .seconds(2)) -> FprintdClient {
        FprintdClient(busAddress: rig.address, claimPatience: claimPatience)
    }

    @Test func theDeviceAndTheUsersFingersAreFprintds() async throws {
        let rig = try await FprintdRig()
        defer { rig.stop() }
        let client = client(rig)
        let device = try await client.device()
        #expect(device.name == "Virtual device for debugging")
        #expect(device.scanType == .swipe)
        #expect(device.enrollStages == 5)
        #expect(try await client.enrolledFingers() == [])
        try await rig.enroll("right-index-finger", scanning: "fl-right")
        try await rig.enroll("left-thumb", scanning: "fl-thumb")
        #expect(try await client.enrolledFingers() == [.leftThumb, .rightIndex])
    }

    /// fingerlockd makes one client for its life, but the CLI's and the tests' clients come and go:
    /// each one's connection (and the signal filter on it) must go with it, not stay open.
    @Test func aClientLetGoClosesItsConnection() async throws {
        let rig = try await FprintdRig()
        defer { rig.stop() }
        let me = getpid()
        var client: FprintdClient? = client(rig)
        #expect(try await client?.enrolledFingers() == [])
        #expect(try rig.connections(of: me) == 1)
        client = nil
        #expect(try await FprintdRig.poll { try rig.connections(of: me) == 0 })
    }

    @Test func anEnrolledFingerMatchesAndAnotherDoesNot() async throws {
        let rig = try await Self.rigWithAFinger()
        defer { rig.stop() }
        let client = client(rig)
        let socket = VirtualDeviceSocket(path: rig.virtualDevice)
        let read = Reads()
        async let matched = client.verify(nil, timeout: .seconds(20)) { read.add() }
        try await socket.touch("fl-right")
        // virtual_device cannot identify: fprintd's `any` is its first finger, which it names.
        #expect(try await matched == .match(selected: .rightIndex))
        async let other = client.verify(.rightIndex, timeout: .seconds(20)) { read.add() }
        try await socket.touch("someone-else")
        // A finger named: fprintd says it checked that one.
        #expect(try await other == .noMatch(checked: .rightIndex))
        #expect(read.value == 2)
    }

    @Test func aRetryHintEndsTheVerifyWithTheHintAndNoFingerRead() async throws {
        let rig = try await Self.rigWithAFinger()
        defer { rig.stop() }
        let read = Reads()
        async let hinted = client(rig).verify(nil, timeout: .seconds(20)) { read.add() }
        try await VirtualDeviceSocket(path: rig.virtualDevice).queue(.retry(1))
        #expect(try await hinted == .retry(.tooShort))
        #expect(read.value == 0)
    }

    @Test func aFingerNotEnrolledWithFprintdIsSaidPlainly() async throws {
        let rig = try await Self.rigWithAFinger()
        defer { rig.stop() }
        let error = await #expect(throws: FingerprintError.self) {
            _ = try await client(rig).verify(.leftThumb, timeout: .seconds(5)) {}
        }
        #expect(error?.code == .printNotFound)
    }

    @Test func theTimeoutAndACancelReleaseTheReaderAtOnce() async throws {
        let rig = try await Self.rigWithAFinger()
        defer { rig.stop() }
        let started = ContinuousClock.now
        let timedOut = await #expect(throws: FingerprintError.self) {
            _ = try await client(rig).verify(nil, timeout: .seconds(1)) {}
        }
        #expect(timedOut?.code == .timedOut)
        #expect(ContinuousClock.now - started < .seconds(10))
        // Another client claims right after, with no patience at all.
        let next = client(rig, claimPatience: .zero)
        async let matched = next.verify(nil, timeout: .seconds(20)) {}
        try await VirtualDeviceSocket(path: rig.virtualDevice).touch("fl-right")
        #expect(try await matched == .match(selected: .rightIndex))
        // A cancelled verify (Ctrl-C) releases too.
        let cancelled = Task { try await client(rig).verify(nil, timeout: .seconds(60)) {} }
        try await Task.sleep(for: .milliseconds(500))
        cancelled.cancel()
        await #expect(throws: (any Error).self) { _ = try await cancelled.value }
        async let again = client(rig, claimPatience: .zero).verify(nil, timeout: .seconds(20)) {}
        try await VirtualDeviceSocket(path: rig.virtualDevice).touch("fl-right")
        #expect(try await again == .match(selected: .rightIndex))
    }

    @Test func anotherClientHoldingTheReaderIsBusyAfterABriefWait() async throws {
        let rig = try await Self.rigWithAFinger()
        defer { rig.stop() }
        // Another program (a lock screen) holds the claim on its own connection.
        let marker = rig.directory + "/claimed"
        let holder = try rig.start(
            "/usr/bin/python3",
            [
                "-c",
                """
                import dbus, time
                bus = dbus.SystemBus()
                device = bus.get_object('net.reactivated.Fprint', '/net/reactivated/Fprint/Device/0')
                dbus.Interface(device, 'net.reactivated.Fprint.Device').Claim('')
                open('\(marker)', 'w').close()
                time.sleep(60)
                """,
            ])
        defer { holder.terminate() }
        while !FileManager.default.fileExists(atPath: marker) && holder.isRunning { try await Task.sleep(for: .milliseconds(20)) }
        #expect(holder.isRunning)
        let started = ContinuousClock.now
        let error = await #expect(throws: FingerprintError.self) {
            _ = try await client(rig, claimPatience: .seconds(1)).verify(nil, timeout: .seconds(5)) {}
        }
        #expect(error?.code == .busy)
        #expect(error?.message.contains("another program") == true)
        #expect(ContinuousClock.now - started >= .milliseconds(500))
    }

    @Test func polkitDenyingVerifyIsAPermissionError() async throws {
        let rig = try await Self.rigWithAFinger()
        defer { rig.stop() }
        try rig.allow([FprintdRig.enroll])
        let error = await #expect(throws: FingerprintError.self) { _ = try await client(rig).enrolledFingers() }
        #expect(error?.code == .permissionDenied)
        #expect(error?.message.contains("net.reactivated.fprint.device.verify") == true)
    }

    @Test func fprintdMissingOrStoppingMidScanIsAClearErrorNeverAHang() async throws {
        let bare = try await FprintdRig(withFprintd: false)
        defer { bare.stop() }
        let missing = await #expect(throws: FingerprintError.self) { _ = try await client(bare).device() }
        #expect(missing?.code == .noReader)
        #expect(missing?.message.contains("fprintd is not installed or not running") == true)

        let rig = try await Self.rigWithAFinger()
        defer { rig.stop() }
        let started = ContinuousClock.now
        let verifying = Task { try await client(rig).verify(nil, timeout: .seconds(60)) {} }
        // The verify is running once fprintd opened the virtual device.
        try await VirtualDeviceSocket(path: rig.virtualDevice).send(.sleep(milliseconds: 0))
        rig.stopFprintd(signal: SIGKILL)
        let stopped = await #expect(throws: FingerprintError.self) { _ = try await verifying.value }
        #expect(stopped?.message.contains("fprintd stopped") == true, "\(stopped?.message ?? "")")
        #expect(ContinuousClock.now - started < .seconds(30))
    }

    /// The reader unplugged while fprintd scans for the verify: a clear error, never a hang, and
    /// never a failed touch (no finger was read).
    @Test func theReaderRemovedMidScanIsSaidAndNoFingerIsRead() async throws {
        let rig = try await Self.rigWithAFinger()
        defer { rig.stop() }
        let read = Reads()
        let client = client(rig)
        let verdict = Task { try await client.verify(.rightIndex, timeout: .seconds(20)) { read.add() } }
        let socket = VirtualDeviceSocket(path: rig.virtualDevice)
        // The device is open once the verify claimed it.
        _ = try await socket.send(.sleep(milliseconds: 0))
        _ = try await socket.send(.unplug)
        let error = await #expect(throws: FingerprintError.self) { _ = try await verdict.value }
        #expect(error?.code == .unplugged || error?.code == .deviceError, "\(String(describing: error))")
        #expect(read.value == 0)
    }

    /// Any client of the bus may send a signal to another connection by its unique name: the
    /// verify's own connection is sent fprintd's "verify-match" by someone else, and it is not taken.
    @Test func aVerifyMatchSentByAnotherClientIsNotTaken() async throws {
        let rig = try await Self.rigWithAFinger()
        defer { rig.stop() }
        let client = client(rig)
        _ = try await client.device()
        async let verdict = client.verify(nil, timeout: .seconds(20)) {}
        let socket = VirtualDeviceSocket(path: rig.virtualDevice)
        // The device is open once the verify claimed it: then the forgery arrives, then a stranger's finger.
        _ = try await socket.send(.sleep(milliseconds: 0))
        let forger = try rig.start("/usr/bin/python3", ["-c", Self.forgery, "\(getpid())"])
        while forger.isRunning { try await Task.sleep(for: .milliseconds(20)) }
        #expect(forger.terminationStatus == 0)
        try await socket.touch("someone-else")
        #expect(try await verdict == .noMatch(checked: .rightIndex))
    }

    /// Sends VerifyFingerSelected and VerifyStatus("verify-match", done) to every connection of the
    /// process whose pid is the first argument, as a client other than fprintd.
    static let forgery = """
        import dbus, sys
        from dbus.lowlevel import SignalMessage
        bus = dbus.SystemBus()
        daemon = bus.get_object("org.freedesktop.DBus", "/org/freedesktop/DBus")
        names = [n for n in daemon.ListNames(dbus_interface="org.freedesktop.DBus") if n.startswith(":")]
        sent = 0
        for name in names:
            try:
                pid = daemon.GetConnectionUnixProcessID(name, dbus_interface="org.freedesktop.DBus")
            except dbus.DBusException:
                continue
            if pid != int(sys.argv[1]):
                continue
            for member, args in (("VerifyFingerSelected", [("s", "right-index-finger")]), ("VerifyStatus", [("s", "verify-match"), ("b", True)])):
                message = SignalMessage("/net/reactivated/Fprint/Device/0", "net.reactivated.Fprint.Device", member)
                message.set_destination(name)
                for signature, value in args:
                    message.append(value, signature=signature)
                bus.send_message(message)
                sent += 1
        bus.flush()
        sys.exit(0 if sent else 3)
        """
}
