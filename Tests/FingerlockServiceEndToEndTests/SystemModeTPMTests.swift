import FingerlockServiceTestSupport
import FingerlockTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A system-mode vault bound to the TPM fingerlockd uses (swtpm), through the built binaries:
/// fingerlockd as its service user, fingerlock as a login user. The service counts, then the TPM;
/// its state is unreadable to users, and a copy of it beside another TPM opens nothing.
/// Serialized although each test has its own swtpm, service, socket, state, users' homes and keyring
/// namespace: with its two tests side by side, a full run once failed `tpm enable` with "No TPM
/// answers at swtpm:path=… (tcti:IO failure)", not yet understood; one after the other they cost
/// about 15 s, off the run's longest path.
@Suite(.timed, .serialized, .timeLimit(.minutes(5)))
struct SystemModeTPMTests {
    static let passcode = SystemModeRealUsersTests.passcode
    /// This suite's own login users (`RealUsersTests.ensureUsers`); Bob's subordinate uids are his.
    static let alice = "flk-smtpm-alice"
    static let bob = "flk-smtpm-bob"
    static let users = [alice, bob]

    @Test func aBoundSystemModeVaultCountsInTheServiceAndTheTPMAndItsStateIsUselessElsewhere() async throws {
        try await RealUsersTests.ensureUsers(SystemModeTPMTests.users)
        let setup = try SystemModeRealUsersTests.Setup(users: SystemModeTPMTests.users)
        defer { try? FileManager.default.removeItem(atPath: setup.base) }
        let tpm = try SoftwareTPM()
        defer { tpm.stop() }
        try tpm.setDictionaryParameters(maximumTries: 20, interval: 600, recovery: 600)
        tpm.openToEveryone()
        var service = try await DaemonProcess(
            socket: setup.socket, stateDirectory: setup.base + "/run/state", binary: setup.daemon,
            asUser: RealUsersTests.serviceUser, environment: ["FINGERLOCK_TPM_TCTI": tpm.tcti])
        defer { service.terminateBlocking() }
        let alice = SystemModeTPMTests.alice
        let data = setup.base + "/\(alice)/data"
        let common = ["--reader", "simulated", "--data-dir", data, "--socket", setup.socket]
        // Alice's own process may not open the TPM: only the service's does the TPM work.
        let noTPM = ["FINGERLOCK_TPM_TCTI": "device:/dev/tpmrm-absent"]
        func run(_ arguments: [String], _ passcodes: [String] = [], socket: String? = nil) async throws -> CommandOutput {
            let options = ["--reader", "simulated", "--data-dir", data, "--socket", socket ?? setup.socket]
            return try await setup.fingerlockSeparately(as: alice, options + arguments, passcodes: passcodes, environment: noTPM)
        }
        let set = try await setup.fingerlock(
            as: alice, common + ["passcode", "set", "--passcode-fd", "3"], passcodes: [Self.passcode, Self.passcode])
        try #require(set.status == 0, "\(set.output)")
        let recoveryKey = try #require(set.output.firstMatch(of: /([A-Z0-9]{4}-){12}[A-Z0-9]{4}/).map { String($0.output.0) })
        try #require(try await run(["system", "enable", "--passcode-fd", "3"], [Self.passcode]).status == 0)
        let enabled = try await run(["tpm", "enable", "--passcode-fd", "3"], [Self.passcode])
        #expect(enabled.status == 0, "\(enabled)")
        let status = try await run(["tpm", "status", "--json"])
        #expect(status.stdout.contains("\"bound\" : true") && status.stdout.contains("\"location\" : \"fingerlockd\""), "\(status)")

        // The right passcode opens; a wrong one is counted by the service and by the TPM.
        _ = try await run(["lock"])
        #expect(try await run(["unlock", "--passcode-fd", "3"], [Self.passcode]).status == 0)
        _ = try await run(["lock"])
        let wrong = try await run(["unlock", "--passcode-fd", "3"], ["not the passcode"])
        #expect(wrong.status == 1, "\(wrong)")
        #expect(wrong.stderr.contains("fingerlockd counts 1 wrong"), "\(wrong)")
        #expect(try tpm.lockoutCounter() == 1)
        #expect(try await run(["unlock", "--passcode-fd", "3"], [Self.passcode]).status == 0)

        // The service's state is not Alice's to read.
        let state = setup.base + "/run/state"
        let listed = try await runCommandSeparately("/usr/sbin/runuser", ["-u", alice, "--", "/usr/bin/find", state, "-type", "f"], timeout: 30)
        #expect(listed.status != 0 || listed.stdout.isEmpty, "\(listed)")

        // A copy of the service's state and of Alice's vault, on a machine with another TPM: nothing opens.
        let other = try SoftwareTPM()
        defer { other.stop() }
        other.openToEveryone()
        _ = await service.terminate()
        let copy = setup.base + "/run2/state"
        #expect(try await runCommand("/bin/cp", ["-a", state, copy]).0 == 0)
        let elsewhere = try await DaemonProcess(
            socket: setup.base + "/run2/socket", stateDirectory: copy, binary: setup.daemon,
            asUser: RealUsersTests.serviceUser, environment: ["FINGERLOCK_TPM_TCTI": other.tcti])
        defer { elsewhere.terminateBlocking() }
        let refused = try await run(["unlock", "--passcode-fd", "3"], [Self.passcode], socket: setup.base + "/run2/socket")
        #expect(refused.status == 4, "\(refused)")
        #expect(refused.stderr.contains("sealed by another TPM"), "\(refused)")
        #expect(refused.stderr.contains("recovery key"), "\(refused)")
        #expect(try other.lockoutCounter() == 0)
        _ = await elsewhere.terminate()

        // The same service without any TPM: refused, and the recovery key still opens the vault.
        service = try await DaemonProcess(
            socket: setup.socket, stateDirectory: state, binary: setup.daemon, asUser: RealUsersTests.serviceUser,
            environment: ["FINGERLOCK_TPM_TCTI": "device:/dev/tpmrm-absent"])
        let absent = try await run(["unlock", "--passcode-fd", "3"], [Self.passcode])
        #expect(absent.status == 4 && absent.stderr.contains("no TPM at /dev/tpmrm-absent"), "\(absent)")
        let reset = try await run(["passcode", "reset", "--passcode-fd", "3"], [recoveryKey, "after the reset", "after the reset"])
        #expect(reset.status == 0, "\(reset)")
        #expect(try await run(["unlock", "--passcode-fd", "3"], ["after the reset"]).status == 0)
    }

    /// Issue 38 (H4): the TPM's counter is the machine's, and fingerlockd lets no user spend another's
    /// part of it. On swtpm's factory defaults (3 failures, one forgotten per 1000 s), Bob's wrong
    /// passcodes — two clients at once, then more, as a subordinate uid of his, then after a restart
    /// of the service — leave the TPM one failure of his, and Alice's right passcode opens every time;
    /// Bob is told, in one line, how long until the TPM forgets his (exit 3, locked_out).
    @Test func anotherUsersWrongPasscodesNeverMakeYourRightOneFail() async throws {
        try await RealUsersTests.ensureUsers(SystemModeTPMTests.users)
        let setup = try SystemModeRealUsersTests.Setup(users: SystemModeTPMTests.users)
        defer { try? FileManager.default.removeItem(atPath: setup.base) }
        let tpm = try SoftwareTPM()
        defer { tpm.stop() }
        tpm.openToEveryone()
        let state = setup.base + "/run/state"
        let environment = ["FINGERLOCK_TPM_TCTI": tpm.tcti]
        var service = try await DaemonProcess(
            socket: setup.socket, stateDirectory: state, binary: setup.daemon, asUser: RealUsersTests.serviceUser,
            environment: environment)
        defer { service.terminateBlocking() }
        let noTPM = ["FINGERLOCK_TPM_TCTI": "device:/dev/tpmrm-absent"]
        @Sendable func run(_ user: String, _ arguments: [String], _ passcodes: [String] = []) async throws -> CommandOutput {
            let options = ["--reader", "simulated", "--data-dir", setup.base + "/\(user)/data", "--socket", setup.socket]
            return try await setup.fingerlockSeparately(as: user, options + arguments, passcodes: passcodes, environment: noTPM)
        }
        let alice = SystemModeTPMTests.alice
        let bob = SystemModeTPMTests.bob
        for user in [alice, bob] {
            let set = try await run(user, ["passcode", "set", "--passcode-fd", "3"], [Self.passcode, Self.passcode])
            try #require(set.status == 0, "\(set)")
            try #require(try await run(user, ["system", "enable", "--passcode-fd", "3"], [Self.passcode]).status == 0)
            let bound = try await run(user, ["tpm", "enable", "--passcode-fd", "3"], [Self.passcode])
            try #require(bound.status == 0, "\(bound)")
            _ = try await run(user, ["lock"])
        }
        try #require(try tpm.lockoutCounter() == 0)

        // Bob, two clients at once, then two more tries: the TPM is asked once.
        async let one = try? run(bob, ["unlock", "--passcode-fd", "3"], ["not the passcode"])
        async let two = try? run(bob, ["unlock", "--passcode-fd", "3"], ["not the passcode"])
        let first = await [one, two].compactMap { $0 }
        #expect(first.map(\.status).sorted() == [1, 3], "\(first)")
        for _ in 1...2 {
            let refused = try await run(bob, ["unlock", "--passcode-fd", "3"], ["not the passcode"])
            #expect(refused.status == 3, "\(refused)")
            #expect(refused.stderr.contains("try again in about 17 min"), "\(refused)")
            #expect(refused.stderr.trimmingCharacters(in: .newlines).contains("\n") == false, "\(refused)")
        }
        #expect(try tpm.lockoutCounter() == 1)

        // Bob once more, as one of his subordinate uids with a vault of its own: it counts as Bob.
        let range = try #require(SubordinateUIDFloodTests.subordinateRange(of: bob), "no /etc/subuid range for \(bob)")
        let subordinate = range.first + 7
        let client = setup.base + "/raw_client.py"
        try FileManager.default.copyItem(atPath: fixtures + "/raw_client.py", toPath: client)
        chmod(client, 0o644)
        func call(_ method: String, _ parameters: [String: Any]) async throws -> [String: Any] {
            let json = String(decoding: try JSONSerialization.data(withJSONObject: parameters), as: UTF8.self)
            let ran = try await runCommandSeparately(
                "/usr/bin/setpriv",
                [
                    "--reuid=\(subordinate)", "--regid=\(subordinate)", "--clear-groups", "/usr/bin/python3", client,
                    setup.socket, "io.fingerlock.Service." + method, json,
                ], timeout: 30)
            return try #require(try JSONSerialization.jsonObject(with: Data(ran.stdout.utf8)) as? [String: Any], "\(ran)")
        }
        let vault = UUID().uuidString.lowercased()
        let associatedData = Data("fingerlock slot table v1".utf8).base64EncodedString()
        _ = try await call("RegisterVault", ["vault": vault])
        let sealed = try await call(
            "SealPasscodeSlot",
            [
                "vault": vault, "stretched": Data(repeating: 1, count: 32).base64EncodedString(),
                "key": Data(repeating: 2, count: 32).base64EncodedString(), "associatedData": associatedData,
                "tpm": ["pcr7": false],
            ])
        let slot = try #require((sealed["parameters"] as? [String: Any])?["sealedSlot"] as? String, "\(sealed)")
        let guess = try await call(
            "UnlockWithPasscode",
            [
                "vault": vault, "stretched": Data(repeating: 3, count: 32).base64EncodedString(), "sealedSlot": slot,
                "associatedData": associatedData, "cacheSeconds": 0,
            ])
        #expect(guess["error"] as? String == "io.fingerlock.Service.TPMRefused", "\(guess)")
        #expect((guess["parameters"] as? [String: Any])?["problem"] as? String == "shareSpent", "\(guess)")
        #expect(try tpm.lockoutCounter() == 1)

        // Alice's right passcode opens.
        let opened = try await run(alice, ["unlock", "--passcode-fd", "3"], [Self.passcode])
        #expect(opened.status == 0, "\(opened)")
        _ = try await run(alice, ["lock"])

        // A restarted service still knows whose failure the TPM counts.
        _ = await service.terminate()
        service = try await DaemonProcess(
            socket: setup.socket, stateDirectory: state, binary: setup.daemon, asUser: RealUsersTests.serviceUser,
            environment: environment)
        let again = try await run(bob, ["unlock", "--passcode-fd", "3"], ["not the passcode"])
        #expect(again.status == 3, "\(again)")
        #expect(try tpm.lockoutCounter() == 1)
        let reopened = try await run(alice, ["unlock", "--passcode-fd", "3"], [Self.passcode])
        #expect(reopened.status == 0, "\(reopened)")
    }
}
