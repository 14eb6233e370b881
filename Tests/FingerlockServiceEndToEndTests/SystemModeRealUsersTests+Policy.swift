import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 14 (pol14), through the built binaries with real users: the test-vault rule is the
/// service's to apply, since its reader is the one that scans.
extension SystemModeRealUsersTests {
    @Test func aHardwareVaultRefusesTheServicesSimulatedReaderWithUserModesLine() async throws {
        try await RealUsersTests.ensureUsers(Self.users)
        let setup = try Setup(users: Self.users)
        let service = try await setup.startService(touches: "right-index,right-index,right-index")
        defer {
            service.terminateBlocking()
            try? FileManager.default.removeItem(atPath: setup.base)
        }
        let alice = Self.alice
        let data = setup.base + "/\(alice)/data"
        let common = ["--data-dir", data, "--socket", setup.socket]
        func run(_ arguments: [String], _ passcodes: [String] = []) async throws -> (status: Int32, output: String) {
            try await setup.fingerlock(as: alice, common + arguments, passcodes: passcodes)
        }
        // No reader for the CLI: a hardware vault.
        let set = try await run(["--reader", "auto", "passcode", "set", "--passcode-fd", "3"], [Self.passcode, Self.passcode])
        try #require(set.status == 0, "\(set.output)")
        let enabled = try await run(["system", "enable", "--passcode-fd", "3"], [Self.passcode])
        try #require(enabled.status == 0, "\(enabled.output)")
        let vault = try await Self.storeID(data)
        // The kind reaches the service with the settings at the end of `system enable`, best effort:
        // when this fails, what enable said about it is the clue.
        let policy = try await setup.serviceStatus(as: alice, socket: setup.socket, vault: vault)["policy"] as? [String: Any]
        #expect(policy?["kind"] as? String == "hardware", "enable said: \(enabled.output)")

        let line = "This vault was set up with real hardware; it does not accept the test reader simulated:0."
        // Enrolling on the service's simulated reader is refused before the passcode is counted.
        let enroll = try await run(["enroll", "right-index", "--passcode-fd", "3"], [Self.passcode])
        #expect(enroll.status == 4 && enroll.output.contains(line), "\(enroll.output)")
        // With the key held by the service, a touch is refused the same way, and nothing is counted.
        #expect(try await run(["unlock", "--passcode-fd", "3"], [Self.passcode]).status == 0)
        let verify = try await run(["verify"])
        #expect(verify.status == 4 && verify.output.contains(line), "\(verify.output)")
        let status = try await setup.serviceStatus(as: alice, socket: setup.socket, vault: vault)
        #expect(status["failedTouches"] as? Int == 0 && status["failedPasscodes"] as? Int == 0, "\(status)")
    }

    /// `reuse-window`, applied by the service: right after the passcode, a command opens the notes
    /// without a touch (and without a passcode source); `verify` still scans.
    @Test func withinTheReuseWindowTheServiceReleasesTheKeyWithoutATouch() async throws {
        try await RealUsersTests.ensureUsers(Self.users)
        let setup = try Setup(users: Self.users)
        // Two touches enroll; the only other one is a finger that matches nothing.
        let service = try await setup.startService(touches: "right-index,right-index,unknown")
        defer {
            service.terminateBlocking()
            try? FileManager.default.removeItem(atPath: setup.base)
        }
        let alice = Self.alice
        let data = setup.base + "/\(alice)/data"
        let common = ["--data-dir", data, "--socket", setup.socket]
        func run(_ arguments: [String], _ passcodes: [String] = [], body: String = "") async throws -> (
            status: Int32, output: String
        ) {
            try await setup.fingerlock(as: alice, common + arguments, passcodes: passcodes, body: body)
        }
        let set = try await run(["--reader", "simulated", "passcode", "set", "--passcode-fd", "3"], [Self.passcode, Self.passcode])
        try #require(set.status == 0, "\(set.output)")
        let added = try await run(["notes", "add", "--title", "kept", "--passcode-fd", "3"], [Self.passcode], body: "body\n")
        try #require(added.status == 0, "\(added.output)")
        try #require(try await run(["system", "enable", "--passcode-fd", "3"], [Self.passcode]).status == 0)
        let enrolled = try await run(["enroll", "right-index", "--passcode-fd", "3"], [Self.passcode])
        try #require(enrolled.status == 0, "\(enrolled.output)")
        let configured = try await run(["config", "set", "reuse-window", "2m", "--passcode-fd", "3"], [Self.passcode])
        try #require(configured.status == 0, "\(configured.output)")

        let listed = try await run(["notes", "list"])
        #expect(listed.status == 0 && listed.output.contains("kept"), "\(listed.output) \(service.log)")
        let vault = try await Self.storeID(data)
        #expect(try await setup.serviceStatus(as: alice, socket: setup.socket, vault: vault)["failedTouches"] as? Int == 0)
        // verify is a touch, never a reuse: the unknown finger is scanned, and does not match.
        let verify = try await run(["verify"])
        #expect(verify.status == 1, "\(verify.output)")
        #expect(try await setup.serviceStatus(as: alice, socket: setup.socket, vault: vault)["failedTouches"] as? Int == 1)
    }
}
