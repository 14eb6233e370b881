import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 14: `system enable` moves the fingers enrolled in user mode to fingerlockd and `system
/// disable` moves them back, with real users: no finger is enrolled twice.
extension SystemModeRealUsersTests {
    @Test func enableAndDisableMoveTheEnrolledFingers() async throws {
        try await RealUsersTests.ensureUsers(Self.users)
        let setup = try Setup(users: Self.users)
        // The service's reader sees one touch: `verify` after `system enable`.
        let service = try await setup.startService(touches: "right-index")
        defer {
            service.terminateBlocking()
            try? FileManager.default.removeItem(atPath: setup.base)
        }
        let data = setup.base + "/\(Self.alice)/data"
        let alice = try await AliceInUserMode(setup, data: data)

        let enabled = try await alice.run(["system", "enable", "--passcode-fd", "3"], [Self.passcode])
        #expect(enabled.status == 0, "\(enabled.output)")
        #expect(enabled.output.contains("Fingers moved to fingerlockd: right-index-finger"), "\(enabled.output)")
        #expect(!enabled.output.contains("enroll it again"), "\(enabled.output)")
        let vault = try await Self.storeID(data)
        let listed = try await setup.rawCall(
            as: Self.alice, socket: setup.socket, "io.fingerlock.Service.ListFingers", "{\"vault\": \"\(vault)\"}")
        let fingers = (listed["parameters"] as? [String: Any])?["fingers"] as? [[String: Any]] ?? []
        #expect(fingers.map { $0["finger"] as? String } == ["right-index-finger"], "\(listed)")

        // Not enrolled again: the passcode once, then a touch on the service's reader matches.
        let unlocked = try await alice.run(["unlock", "--passcode-fd", "3"], [Self.passcode])
        #expect(unlocked.status == 0, "\(unlocked.output)")
        let verified = try await alice.run(["verify", "right-index"])
        #expect(verified.status == 0 && verified.output.contains("right-index-finger"), "\(verified.output) \(service.log)")

        let disabled = try await alice.run(["system", "disable", "--passcode-fd", "3"], [Self.passcode])
        #expect(disabled.status == 0, "\(disabled.output)")
        #expect(disabled.output.contains("Fingers moved back into the vault: right-index-finger"), "\(disabled.output)")
        let forgotten = try await setup.rawCall(
            as: Self.alice, socket: setup.socket, "io.fingerlock.Service.ListFingers", "{\"vault\": \"\(vault)\"}")
        #expect(forgotten["error"] as? String == "io.fingerlock.Service.VaultNotRegistered", "\(forgotten)")

        // User mode again: the CLI's own reader matches the finger that came back.
        let userTouch = try await alice.run(["verify", "right-index", "--passcode-fd", "3"], [Self.passcode], touches: "right-index")
        #expect(userTouch.status == 0 && userTouch.output.contains("right-index-finger"), "\(userTouch.output)")
    }

    @Test func aFingerTheServiceRefusesStaysInTheVaultAndIsNamed() async throws {
        try await RealUsersTests.ensureUsers(Self.users)
        let setup = try Setup(users: Self.users)
        // No simulated reader for the service: a template of the CLI's simulated reader cannot match there.
        let service = try await setup.startService()
        defer {
            service.terminateBlocking()
            try? FileManager.default.removeItem(atPath: setup.base)
        }
        let data = setup.base + "/\(Self.alice)/data"
        let alice = try await AliceInUserMode(setup, data: data)

        let enabled = try await alice.run(["system", "enable", "--passcode-fd", "3"], [Self.passcode])
        #expect(enabled.status == 0, "\(enabled.output)")
        let line = enabled.output.split(separator: "\n").filter { $0.contains("did not move") }
        #expect(line.count == 1 && line[0].contains("right-index-finger") && line[0].contains("simulated:0"), "\(enabled.output)")
        #expect(enabled.output.contains("fingerlock enroll right-index-finger"), "\(enabled.output)")
        #expect(!enabled.output.contains("Fingers moved"), "\(enabled.output)")

        // It stayed in the vault: back in user mode, it matches without enrolling again.
        let disabled = try await alice.run(["system", "disable", "--passcode-fd", "3"], [Self.passcode])
        #expect(disabled.status == 0, "\(disabled.output)")
        let userTouch = try await alice.run(["verify", "right-index", "--passcode-fd", "3"], [Self.passcode], touches: "right-index")
        #expect(userTouch.status == 0 && userTouch.output.contains("right-index-finger"), "\(userTouch.output)")
    }
}

/// Alice's `fingerlock` with the CLI's own simulated reader, scripted by her environment
/// (`touches`; "absent": no reader): her vault is made and right-index enrolled in user mode.
private struct AliceInUserMode {
    let setup: SystemModeRealUsersTests.Setup
    let common: [String]

    init(_ setup: SystemModeRealUsersTests.Setup, data: String) async throws {
        self.setup = setup
        common = ["--data-dir", data, "--socket", setup.socket, "--reader", "simulated"]
        let passcode = SystemModeRealUsersTests.passcode
        let set = try await run(["passcode", "set", "--passcode-fd", "3"], [passcode, passcode])
        try #require(set.status == 0, "\(set.output)")
        let enrolled = try await run(["enroll", "right-index", "--passcode-fd", "3"], [passcode], touches: "right-index,right-index")
        try #require(enrolled.status == 0, "\(enrolled.output)")
    }

    func run(_ arguments: [String], _ passcodes: [String] = [], touches: String = "absent") async throws -> (
        status: Int32, output: String
    ) {
        try await setup.fingerlock(
            as: SystemModeRealUsersTests.alice, common + arguments, passcodes: passcodes,
            environment: ["FINGERLOCK_SIMULATED_TOUCHES": touches, "FINGERLOCK_SIMULATED_STAGES": "2"])
    }
}
