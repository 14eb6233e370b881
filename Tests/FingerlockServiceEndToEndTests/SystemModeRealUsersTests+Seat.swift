import FingerlockServiceTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 38 (H3), through the built binaries with real users and logind (python-dbusmock's, on a
/// private bus): fingerlockd scans only for the user whose session is active and local at the
/// reader's seat, so another user's enrollment cannot capture the fingerprint of the person at the
/// reader.
extension SystemModeRealUsersTests {
    /// `fingerlock ARGS` as `user` from logind session `session` (nil: a process in no session).
    private static func run(
        _ setup: Setup, _ user: String, session: String?, _ arguments: [String], _ passcodes: [String] = []
    ) async throws -> (status: Int32, output: String) {
        try await setup.fingerlock(
            as: user, ["--data-dir", setup.base + "/\(user)/data", "--socket", setup.socket] + arguments,
            passcodes: passcodes, environment: session.map { ["FLK_LOGIND_SESSION": $0] } ?? [:])
    }

    /// A system-mode test vault of `user`'s, made in `session`.
    private static func systemVault(_ setup: Setup, _ user: String, session: String?) async throws -> String {
        let set = try await run(
            setup, user, session: session, ["--reader", "simulated", "passcode", "set", "--passcode-fd", "3"],
            [passcode, passcode])
        try #require(set.status == 0, "\(set.output)")
        let enabled = try await run(setup, user, session: session, ["system", "enable", "--passcode-fd", "3"], [passcode])
        try #require(enabled.status == 0, "\(enabled.output)")
        return try await storeID(setup.base + "/\(user)/data")
    }

    /// The fingers the service keeps for `user`'s vault.
    private static func serviceFingers(_ setup: Setup, _ user: String, vault: String) async throws -> [String] {
        let listed = try await setup.rawCall(
            as: user, socket: setup.socket, "io.fingerlock.Service.ListFingers", "{\"vault\": \"\(vault)\"}")
        let fingers = (listed["parameters"] as? [String: Any])?["fingers"] as? [[String: Any]]
        return try #require(fingers, "\(listed)").compactMap { $0["finger"] as? String }
    }

    @Test func aUserOverARemoteSessionCannotEnrollAtTheServicesReader() async throws {
        try await RealUsersTests.ensureUsers(Self.users)
        let setup = try Setup(users: Self.users)
        let logind = try await LogindMock(in: setup.base)
        let alice = Self.alice
        let bob = Self.bob
        // Bob is logged in over ssh (logind gives such a session no seat; the mock, one of its own);
        // Alice sits at the reader's seat.
        try await logind.addSession("b9", seat: "ssh", user: bob, remote: true)
        try await logind.addSession("a1", user: alice)
        let service = try await setup.startService(touches: "right-index,right-index", logind: logind)
        defer {
            service.terminateBlocking()
            logind.stop()
            try? FileManager.default.removeItem(atPath: setup.base)
        }
        let vault = try await Self.systemVault(setup, bob, session: "b9")
        let enroll = ["enroll", "right-index", "--passcode-fd", "3"]

        // From his ssh session, Bob's enrollment is refused with the CLI's line for a remote session.
        let remote = try await Self.run(setup, bob, session: "b9", enroll, [Self.passcode])
        #expect(remote.status == 4, "\(remote.output) \(service.log)")
        #expect(
            remote.output.contains(
                "This is a remote (SSH) session (fingerlockd: logind session b9 is a remote login), so the fingerprint is not used: the person at the reader may not be the one typing."
            ), "\(remote.output)")
        // Also while his own local session is the active one at the seat: the command comes from ssh.
        try await logind.addSession("b2", user: bob)
        let fromSSH = try await Self.run(setup, bob, session: "b9", enroll, [Self.passcode])
        #expect(fromSSH.status == 4 && fromSSH.output.contains("logind session b9 is a remote login"), "\(fromSSH.output)")
        // At the seat, but with Alice's session in front: not his turn either.
        try await logind.activate("a1")
        let inactive = try await Self.run(setup, bob, session: "b2", enroll, [Self.passcode])
        #expect(inactive.status == 4, "\(inactive.output)")
        #expect(
            inactive.output.contains("(fingerlockd: the session active at seat0, the reader's seat, is another user's)"),
            "\(inactive.output)")
        // Nothing was scanned, and no passcode attempt was spent on it.
        #expect(try await Self.serviceFingers(setup, bob, vault: vault).isEmpty)
        #expect(try await setup.serviceStatus(as: bob, socket: setup.socket, vault: vault)["failedPasscodes"] as? Int == 0)

        // With his session active at the seat, Bob enrolls from it: the two touches are his.
        try await logind.activate("b2")
        let atSeat = try await Self.run(setup, bob, session: "b2", enroll, [Self.passcode])
        #expect(atSeat.status == 0, "\(atSeat.output) \(service.log)")
        #expect(try await Self.serviceFingers(setup, bob, vault: vault) == ["right-index-finger"])
    }

    @Test func anotherUsersEnrollmentNeverTakesATouchMeantForTheUserAtTheSeat() async throws {
        try await RealUsersTests.ensureUsers(Self.users)
        let setup = try Setup(users: Self.users)
        let logind = try await LogindMock(in: setup.base)
        let alice = Self.alice
        let bob = Self.bob
        // Both have a local session at the reader's seat; Alice's is in front.
        try await logind.addSession("b2", user: bob)
        try await logind.addSession("a1", user: alice)
        // Alice's touches, in order: two to enroll, then the ones she makes for her `verify`.
        let service = try await setup.startService(
            touches: "right-index,right-index,right-index,right-index", logind: logind)
        defer {
            service.terminateBlocking()
            logind.stop()
            try? FileManager.default.removeItem(atPath: setup.base)
        }
        _ = try await Self.systemVault(setup, alice, session: "a1")
        let enrolled = try await Self.run(setup, alice, session: "a1", ["enroll", "right-index", "--passcode-fd", "3"], [Self.passcode])
        try #require(enrolled.status == 0, "\(enrolled.output) \(service.log)")
        let unlocked = try await Self.run(setup, alice, session: "a1", ["unlock", "--passcode-fd", "3"], [Self.passcode])
        try #require(unlocked.status == 0, "\(unlocked.output)")

        // Bob starts an enrollment on his own vault and waits for touches: the service refuses it
        // at once, from his session at the seat and from a process in no session alike.
        let bobsVault = try await Self.systemVault(setup, bob, session: "b2")
        for session in ["b2", nil] {
            let bobs = try await Self.run(setup, bob, session: session, ["enroll", "right-index", "--passcode-fd", "3"], [Self.passcode])
            #expect(bobs.status == 4, "\(bobs.output) \(service.log)")
            #expect(bobs.output.contains("is another user's"), "\(bobs.output)")
        }

        // Alice's touch goes to her own command.
        let verified = try await Self.run(setup, alice, session: "a1", ["verify", "right-index"])
        #expect(verified.status == 0 && verified.output.contains("right-index-finger"), "\(verified.output) \(service.log)")
        #expect(try await Self.serviceFingers(setup, bob, vault: bobsVault).isEmpty)
    }

    @Test func withoutLogindTheServiceScansForNobodyUnlessStartedToAllowIt() async throws {
        try await RealUsersTests.ensureUsers(Self.users)
        let setup = try Setup(users: Self.users)
        mkdir(setup.base + "/run3", 0o755)
        chown(setup.base + "/run3", RealUsersTests.uid(RealUsersTests.serviceUser), setup.gid(RealUsersTests.serviceUser))
        let simulated = ["FINGERLOCK_SIMULATED_TOUCHES": "right-index,right-index", "FINGERLOCK_SIMULATED_STAGES": "2"]
        // No system bus at that address: a machine without logind. Not told to allow scans there.
        let service = try await DaemonProcess(
            socket: setup.socket, stateDirectory: setup.base + "/run/state", binary: setup.daemon,
            asUser: RealUsersTests.serviceUser, extraArguments: ["--reader", "simulated"], environment: simulated,
            logind: "unix:path=\(setup.base)/no-bus-here")
        defer {
            service.terminateBlocking()
            try? FileManager.default.removeItem(atPath: setup.base)
        }
        let alice = Self.alice
        let vault = try await Self.systemVault(setup, alice, session: nil)
        let refused = try await Self.run(setup, alice, session: nil, ["enroll", "right-index", "--passcode-fd", "3"], [Self.passcode])
        #expect(refused.status == 4, "\(refused.output)")
        #expect(refused.output.contains("fingerlockd does not scan: fingerlockd cannot ask logind who is at the reader"), "\(refused.output)")
        #expect(refused.output.contains("--allow-scans-without-logind"), "\(refused.output)")
        #expect(try await Self.serviceFingers(setup, alice, vault: vault).isEmpty)

        // Started with --allow-scans-without-logind (and the same state), it scans for her.
        await service.terminate()
        let allowing = try await DaemonProcess(
            socket: setup.base + "/run3/socket", stateDirectory: setup.base + "/run/state", binary: setup.daemon,
            asUser: RealUsersTests.serviceUser, extraArguments: ["--reader", "simulated", "--allow-scans-without-logind"],
            environment: simulated, logind: "unix:path=\(setup.base)/no-bus-here")
        defer { allowing.terminateBlocking() }
        let allowed = try await setup.fingerlock(
            as: alice,
            [
                "--data-dir", setup.base + "/\(alice)/data", "--socket", setup.base + "/run3/socket", "enroll",
                "right-index", "--passcode-fd", "3",
            ], passcodes: [Self.passcode])
        #expect(allowed.status == 0, "\(allowed.output) \(allowing.log)")
    }
}

extension SystemModeRealUsersTests {
    /// Where two users may both scan (no logind, `--allow-scans-without-logind`), an enrollment or
    /// a touch that waits behind another user's scan says so instead of taking touches silently.
    @Test func anEnrollmentOrATouchWaitingBehindAnotherUsersScanSaysSo() async throws {
        try await RealUsersTests.ensureUsers(Self.users)
        let setup = try Setup(users: Self.users)
        // Alice's two enrollment touches; her touch that holds the reader for her vault's scan
        // timeout, then Bob's two enrollment touches; her second holding touch, then Bob's touch.
        let service = try await setup.startService(
            touches: "right-index,right-index,hold,left-thumb,left-thumb,hold,left-thumb")
        defer {
            service.terminateBlocking()
            try? FileManager.default.removeItem(atPath: setup.base)
        }
        let alice = Self.alice
        let bob = Self.bob
        _ = try await Self.systemVault(setup, alice, session: nil)
        let enrolled = try await Self.run(setup, alice, session: nil, ["enroll", "right-index", "--passcode-fd", "3"], [Self.passcode])
        try #require(enrolled.status == 0, "\(enrolled.output) \(service.log)")
        let configured = try await Self.run(
            setup, alice, session: nil, ["config", "set", "scan-timeout", "15s", "--passcode-fd", "3"], [Self.passcode])
        try #require(configured.status == 0, "\(configured.output)")
        let unlocked = try await Self.run(setup, alice, session: nil, ["unlock", "--passcode-fd", "3"], [Self.passcode])
        try #require(unlocked.status == 0, "\(unlocked.output)")
        _ = try await Self.systemVault(setup, bob, session: nil)
        // Bob waits for the reader as long as his own scan timeout: longer than Alice's scans hold it
        // (15 s each), which is long enough for his command to start and prove his passcode on a
        // loaded machine (a few seconds at most).
        let bobsTimeout = try await Self.run(
            setup, bob, session: nil, ["config", "set", "scan-timeout", "60s", "--passcode-fd", "3"], [Self.passcode])
        try #require(bobsTimeout.status == 0, "\(bobsTimeout.output)")

        /// Alice's `verify`, once its scan holds the reader (for 15 s): the service logs it.
        func alicesHoldingVerify(_ number: Int) async throws -> Task<(status: Int32, output: String), any Error> {
            let verify = Task.detached { try await Self.run(setup, alice, session: nil, ["verify"]) }
            var holding = false
            for _ in 0..<300 where !holding {
                holding = service.log.components(separatedBy: "method=UnlockWithTouch pid=").count > number
                if !holding { try await Task.sleep(for: .milliseconds(50)) }
            }
            try #require(holding, "\(service.log)")
            return verify
        }

        // Bob's enrollment comes while Alice's first verify holds the reader.
        let first = try await alicesHoldingVerify(1)
        let bobsEnroll = try await Self.run(setup, bob, session: nil, ["enroll", "left-thumb", "--passcode-fd", "3"], [Self.passcode])
        #expect(bobsEnroll.status == 0, "\(bobsEnroll.output) \(service.log)")
        #expect(
            bobsEnroll.output.contains(
                "The reader is busy with another user's scan: do not touch it yet; this enrollment waits its turn."),
            "\(bobsEnroll.output)")
        #expect(try await first.value.status != 0)

        // Bob's touch comes while her second verify holds it.
        let bobsUnlock = try await Self.run(setup, bob, session: nil, ["unlock", "--passcode-fd", "3"], [Self.passcode])
        try #require(bobsUnlock.status == 0, "\(bobsUnlock.output)")
        let second = try await alicesHoldingVerify(2)
        let bobsVerify = try await Self.run(setup, bob, session: nil, ["verify"])
        #expect(bobsVerify.status == 0 && bobsVerify.output.contains("left-thumb"), "\(bobsVerify.output) \(service.log)")
        #expect(
            bobsVerify.output.contains(
                "The reader is busy with another user's scan: do not touch it yet; your touch waits its turn."),
            "\(bobsVerify.output)")
        #expect(try await second.value.status != 0)
    }
}
