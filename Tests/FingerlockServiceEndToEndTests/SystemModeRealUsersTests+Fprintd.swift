import FingerlockServiceTestSupport
import FingerlockTestSupport
import FingerprintTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 40, system mode with fprintd, through the built binaries with real users: `fingerlockd`
/// runs as the service user with `--reader fprintd`, Debian's real fprintd (libfprint's
/// virtual_device behind it) and python-dbusmock's polkit and logind on one private system bus,
/// `fingerlock` as Alice and Bob. The service asks fprintd about the vault owner's fingers by the
/// owner's name, and scans only for the user active and local at the seat.
extension SystemModeRealUsersTests {
    /// Everything one test runs: the service, fprintd, logind, and Alice's and Bob's sessions
    /// (Alice at the seat, Bob over ssh).
    struct FprintdSystem {
        let setup: Setup
        let rig: FprintdRig
        let logind: LogindMock
        let service: DaemonProcess

        init() async throws {
            try await RealUsersTests.ensureUsers(SystemModeRealUsersTests.users)
            setup = try Setup(users: SystemModeRealUsersTests.users)
            rig = try await FprintdRig(allowed: [FprintdRig.verify, FprintdRig.enroll, FprintdRig.setUsername])
            logind = try await LogindMock(onBusAt: rig.address, directory: setup.base)
            try await logind.addSession("b9", seat: "ssh", user: SystemModeRealUsersTests.bob, remote: true)
            try await logind.addSession("a1", user: SystemModeRealUsersTests.alice)
            service = try await DaemonProcess(
                socket: setup.socket, stateDirectory: setup.base + "/run/state", binary: setup.daemon,
                asUser: RealUsersTests.serviceUser, extraArguments: ["--reader", "fprintd"], logind: rig.address)
        }

        func stop() {
            service.terminateBlocking()
            logind.stop()
            rig.stop()
            try? FileManager.default.removeItem(atPath: setup.base)
        }

        /// `fingerlock ARGS` as `user` from logind session `session`, the reader the vault's own.
        func run(
            _ user: String, session: String, _ arguments: [String], _ passcodes: [String] = [], touching id: String? = nil
        ) async throws -> CommandOutput {
            let setup = setup
            let all = ["--data-dir", setup.base + "/\(user)/data", "--socket", setup.socket] + arguments
            let environment = ["FLK_LOGIND_SESSION": session, "DBUS_SYSTEM_BUS_ADDRESS": rig.address]
            let device = VirtualDeviceSocket(path: rig.virtualDevice)
            async let ran = setup.fingerlockSeparately(as: user, all, passcodes: passcodes, environment: environment)
            if let id { try await device.touch(id) }
            return try await ran
        }

        /// A system-mode vault of `user`'s, for fprintd's reader (a hardware vault: fprintd's reader is
        /// no test reader, even with virtual_device behind it).
        func systemVault(_ user: String, session: String) async throws {
            let set = try await run(
                user, session: session, ["--reader", "fprintd", "passcode", "set", "--passcode-fd", "3"],
                [SystemModeRealUsersTests.passcode, SystemModeRealUsersTests.passcode])
            try #require(set.status == 0, "\(set.stderr)")
            let enabled = try await run(user, session: session, ["system", "enable", "--passcode-fd", "3"], [passcode])
            try #require(enabled.status == 0, "\(enabled.stderr)")
        }

        var passcode: String { SystemModeRealUsersTests.passcode }
    }

    @Test func fingerlockdVerifiesTheOwnersFingersThroughFprintdAndOnlyTheirs() async throws {
        let system = try await FprintdSystem()
        defer { system.stop() }
        let alice = Self.alice
        let bob = Self.bob
        // Alice enrolled her finger in the desktop's settings; Bob none.
        try await system.rig.enroll("right-index-finger", scanning: "alice-right", for: alice)
        try await system.systemVault(alice, session: "a1")
        let took = try await system.run(alice, session: "a1", ["enroll", "--reader", "fprintd", "--passcode-fd", "3"], [system.passcode])
        #expect(took.status == 0, "\(took.stderr) \(system.service.log)")
        #expect(took.stdout.contains("right-index-finger on Virtual device for debugging"), "\(took.stdout)")
        // The service lists the fingers the vault took, on fprintd's reader, with no made-up date.
        let fingers = try await system.run(alice, session: "a1", ["fingers", "--json"])
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(fingers.stdout.utf8)) as? [[String: Any]])
        #expect(rows.map { $0["finger"] as? String } == ["right-index-finger"])
        #expect(rows.first?["reader"] as? String == "fprintd:Virtual device for debugging")
        #expect(rows.first?["enrolled"] is NSNull)
        let unlocked = try await system.run(alice, session: "a1", ["unlock", "--passcode-fd", "3"], [system.passcode])
        #expect(unlocked.status == 0, "\(unlocked.stderr)")

        let matched = try await system.run(alice, session: "a1", ["verify", "--json"], touching: "alice-right")
        #expect(matched.status == 0, "\(matched.stderr) \(system.service.log)")
        #expect(matched.stdout.contains("\"reader\" : \"fprintd:Virtual device for debugging\""), "\(matched.stdout)")
        let other = try await system.run(alice, session: "a1", ["verify"], touching: "someone-else")
        #expect(other.status == 1, "\(other.stderr)")
        #expect(other.stderr.contains("No match."))

        // Alice over ssh: the service does not scan for her there, whatever fprintd would do.
        try await system.logind.addSession("a9", seat: "ssh", user: alice, remote: true)
        let remote = try await system.run(alice, session: "a9", ["verify"])
        #expect(remote.status != 0 && remote.status != 1, "\(remote.stderr)")
        #expect(remote.stderr.contains("remote"), "\(remote.stderr)")

        // Bob's vault asks fprintd for Bob's fingers, never Alice's: there are none, and no
        // passcode attempt is spent on it.
        try await system.systemVault(bob, session: "b9")
        let bobs = try await system.run(bob, session: "b9", ["enroll", "--reader", "fprintd", "--passcode-fd", "3"], ["wrong passcode"])
        #expect(bobs.status != 0)
        #expect(bobs.stderr.contains("fprintd has no finger enrolled for you"), "\(bobs.stderr)")
        let status = try await system.run(bob, session: "b9", ["status", "--json"])
        #expect(status.stdout.contains("\"failedPasscodes\" : 0"), "\(status.stdout)")
    }

    @Test func aFingerAddedWithFprintdNeedsTheOwnersPasscodeInSystemModeToo() async throws {
        let system = try await FprintdSystem()
        defer { system.stop() }
        let alice = Self.alice
        try await system.rig.enroll("right-index-finger", scanning: "alice-right", for: alice)
        try await system.systemVault(alice, session: "a1")
        let took = try await system.run(alice, session: "a1", ["enroll", "--reader", "fprintd", "--passcode-fd", "3"], [system.passcode])
        try #require(took.status == 0, "\(took.stderr)")
        _ = try await system.run(alice, session: "a1", ["unlock", "--passcode-fd", "3"], [system.passcode])
        // Someone with Alice's login password adds a finger in the desktop's settings.
        try await system.rig.enroll("left-thumb", scanning: "intruder", for: alice)
        let changed = try await system.run(alice, session: "a1", ["verify"])
        #expect(changed.status != 0 && changed.status != 1, "\(changed.stderr)")
        #expect(changed.stderr.contains("fprintd's fingers changed"), "\(changed.stderr)")
        #expect(changed.stderr.contains("added left-thumb"), "\(changed.stderr)")
        // Alice's passcode accepts the new set, and says so.
        let accepted = try await system.run(alice, session: "a1", ["unlock", "--passcode-fd", "3"], [system.passcode])
        #expect(accepted.status == 0, "\(accepted.stderr)")
        #expect(accepted.stderr.contains("now accepts fprintd's fingers as they are (added left-thumb)"), "\(accepted.stderr)")
        let matched = try await system.run(alice, session: "a1", ["verify", "right-index-finger"], touching: "alice-right")
        #expect(matched.status == 0, "\(matched.stderr)")
    }

    @Test func aVaultThatTookFprintdsFingersKeepsThemIntoSystemModeAndBack() async throws {
        let system = try await FprintdSystem()
        defer { system.stop() }
        let alice = Self.alice
        try await system.rig.enroll("right-index-finger", scanning: "alice-right", for: alice)
        // User mode first: the vault takes fprintd's fingers, sealed in it.
        let set = try await system.run(
            alice, session: "a1", ["--reader", "fprintd", "passcode", "set", "--passcode-fd", "3"], [system.passcode, system.passcode])
        try #require(set.status == 0, "\(set.stderr)")
        let took = try await system.run(alice, session: "a1", ["--reader", "fprintd", "enroll", "--passcode-fd", "3"], [system.passcode])
        try #require(took.status == 0, "\(took.stderr)")

        let enabled = try await system.run(alice, session: "a1", ["system", "enable", "--passcode-fd", "3"], [system.passcode])
        #expect(enabled.status == 0, "\(enabled.stderr)")
        _ = try await system.run(alice, session: "a1", ["unlock", "--passcode-fd", "3"], [system.passcode])
        let matched = try await system.run(alice, session: "a1", ["--reader", "fprintd", "verify"], touching: "alice-right")
        #expect(matched.status == 0, "\(matched.stderr) \(system.service.log)")
        // fingerlockd's own templates are not this vault's: said before any passcode.
        let template = try await system.run(alice, session: "a1", ["enroll", "left-thumb", "--passcode-fd", "3"], [system.passcode])
        #expect(template.status == 64, "\(template.stderr)")
        #expect(template.stderr.contains("This vault takes fprintd's fingers"), "\(template.stderr)")

        let disabled = try await system.run(alice, session: "a1", ["system", "disable", "--passcode-fd", "3"], [system.passcode])
        #expect(disabled.status == 0, "\(disabled.stderr)")
        // The service forgot the vault whole, its record of fprintd's fingers too.
        #expect(!(disabled.stdout + disabled.stderr).contains("could not forget"), "\(disabled.stdout) \(disabled.stderr)")
        _ = try await system.run(alice, session: "a1", ["unlock", "--passcode-fd", "3"], [system.passcode])
        let back = try await system.run(alice, session: "a1", ["--reader", "fprintd", "verify"], touching: "alice-right")
        #expect(back.status == 0, "\(back.stderr)")
        let status = try await system.run(alice, session: "a1", ["status", "--json"])
        #expect(status.stdout.contains("\"mode\" : \"user\""), "\(status.stdout)")
    }
}
