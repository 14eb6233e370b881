import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 14, slice 3, through the built binaries with real users: `fingerlockd` as the service user
/// owns the (simulated) reader, scripted by its own environment; `fingerlock` as Alice and Bob.
extension SystemModeRealUsersTests {
    @Test func aTouchThroughTheServiceReleasesOnlyTheKeyItHoldsToItsOwner() async throws {
        try await RealUsersTests.ensureUsers(Self.users)
        let setup = try Setup(users: Self.users)
        // Touches, in the order the service's reader sees them: two to enroll, one for `notes list`,
        // one (another finger) for a raw call of Alice's own, one for `verify right-index`.
        let service = try await setup.startService(touches: "right-index,right-index,right-index,left-thumb,right-index")
        defer {
            service.terminateBlocking()
            try? FileManager.default.removeItem(atPath: setup.base)
        }
        let alice = Self.alice
        let bob = Self.bob
        let data = setup.base + "/\(alice)/data"
        // The CLI's own --reader is not used for a system-mode vault's touches: the service's is.
        let common = ["--data-dir", data, "--socket", setup.socket]
        func run(_ user: String, _ arguments: [String], _ passcodes: [String] = [], body: String = "") async throws -> (
            status: Int32, output: String
        ) {
            try await setup.fingerlock(as: user, arguments, passcodes: passcodes, body: body)
        }

        let set = try await run(
            alice, common + ["--reader", "simulated", "passcode", "set", "--passcode-fd", "3"],
            [Self.passcode, Self.passcode])
        try #require(set.status == 0, "\(set.output)")
        let added = try await run(
            alice, common + ["notes", "add", "--title", "kept", "--passcode-fd", "3"], [Self.passcode], body: "body\n")
        try #require(added.status == 0, "\(added.output)")
        let enabled = try await run(alice, common + ["system", "enable", "--passcode-fd", "3"], [Self.passcode])
        try #require(enabled.status == 0, "\(enabled.output)")
        let vault = try await Self.storeID(data)

        // Enrolling goes through the service (the passcode proven to it), which keeps the template.
        let enrolled = try await run(alice, common + ["enroll", "right-index", "--passcode-fd", "3"], [Self.passcode])
        #expect(enrolled.status == 0, "\(enrolled.output) \(service.log)")
        let fingers = try await run(alice, common + ["fingers"])
        #expect(fingers.status == 0 && fingers.output.contains("right-index-finger"), "\(fingers.output)")
        // Nothing of the template is in Alice's data directory, and she cannot read the service's state.
        let (_, found) = try await runCommand("/bin/grep", ["-rl", "FLSIM1", data])
        #expect(found.isEmpty)
        let peek = try await runCommand(
            "/usr/sbin/runuser", ["-u", alice, "--", "/bin/ls", setup.base + "/run/state/v1"], mergingStandardError: true)
        #expect(peek.status != 0, "\(peek.output)")

        // No key held by the service (enable proved the passcode to the vault, not to the service):
        // a touch is not even scanned; the passcode is asked for, as in user mode (exit 8 without
        // a terminal, saying why once and how to give it).
        let cold = try await run(alice, common + ["verify"])
        #expect(cold.status == 8, "\(cold.output)")
        #expect(cold.output.contains("passcode is needed first") && cold.output.contains("--passcode-stdin"), "\(cold.output)")

        // The passcode once (`unlock`), then a touch opens the notes with the key the service released.
        let unlocked = try await run(alice, common + ["unlock", "--passcode-fd", "3"], [Self.passcode])
        #expect(unlocked.status == 0, "\(unlocked.output)")
        let status = try await setup.serviceStatus(as: alice, socket: setup.socket, vault: vault)
        #expect(status["unlocked"] as? Bool == true)
        // cache-expiry (8 h by default), not the 48 h the unlock asked for before it knew the setting.
        #expect((status["unlockedSeconds"] as? Int ?? 0) <= 8 * 3600, "\(status)")
        let touched = try await run(alice, common + ["notes", "list"])
        #expect(touched.status == 0 && touched.output.contains("kept"), "\(touched.output) \(service.log)")

        // A process of Alice's own asking for the key directly still needs the touch: the wrong
        // finger gives no key.
        let direct = try await setup.rawCall(
            as: alice, socket: setup.socket, "io.fingerlock.Service.UnlockWithTouch",
            "{\"vault\": \"\(vault)\", \"timeoutSeconds\": 5}")
        #expect(direct["error"] as? String == "io.fingerlock.Service.NoMatch", "\(direct)")
        #expect((direct["parameters"] as? [String: Any])?["key"] == nil)

        // Nor can it have the service seal a slot for a passcode of its own choosing, which it could
        // then "prove" to enroll its own finger, reset the counters or forget the vault.
        let chosen = Data(repeating: 0x41, count: 32).base64EncodedString()
        let forged = try await setup.rawCall(
            as: alice, socket: setup.socket, "io.fingerlock.Service.SealPasscodeSlot",
            "{\"vault\": \"\(vault)\", \"stretched\": \"\(chosen)\", \"key\": \"\(chosen)\", \"associatedData\": \"\"}")
        #expect(forged["error"] as? String == "io.fingerlock.Service.KeyRequired", "\(forged)")

        // Bob can use neither Alice's vault (a copy of her data) nor her fingers.
        let bobCopy = try await setup.copy(data, to: bob, named: "data")
        let bobTry = try await run(bob, ["--data-dir", bobCopy, "--socket", setup.socket, "verify"])
        #expect(bobTry.status != 0 && !bobTry.output.contains("Match"), "\(bobTry.output)")
        let bobDirect = try await setup.rawCall(
            as: bob, socket: setup.socket, "io.fingerlock.Service.UnlockWithTouch",
            "{\"vault\": \"\(vault)\", \"timeoutSeconds\": 5}")
        #expect(bobDirect["error"] as? String == "io.fingerlock.Service.VaultNotRegistered", "\(bobDirect)")
        let bobFingers = try await setup.rawCall(
            as: bob, socket: setup.socket, "io.fingerlock.Service.ListFingers", "{\"vault\": \"\(vault)\"}")
        #expect(bobFingers["error"] as? String == "io.fingerlock.Service.VaultNotRegistered", "\(bobFingers)")

        // verify with the right finger; then lock: the service forgets the key, a touch needs the passcode.
        let verified = try await run(alice, common + ["verify", "right-index"])
        #expect(verified.status == 0 && verified.output.contains("right-index-finger"), "\(verified.output)")
        #expect(try await run(alice, common + ["lock"]).status == 0)
        #expect(try await setup.serviceStatus(as: alice, socket: setup.socket, vault: vault)["unlocked"] as? Bool == false)
        let afterLock = try await run(alice, common + ["notes", "list"])
        #expect(afterLock.status == 8, "\(afterLock.output)")

        // Forgetting the finger goes through the service too.
        let forgot = try await run(alice, common + ["forget", "right-index", "--passcode-fd", "3"], [Self.passcode])
        #expect(forgot.status == 0, "\(forgot.output)")
        #expect(!(try await run(alice, common + ["fingers"]).output.contains("right-index-finger")))
    }
}
