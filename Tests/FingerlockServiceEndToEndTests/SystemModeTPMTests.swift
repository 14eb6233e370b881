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
@Suite(.serialized, .timeLimit(.minutes(5)))
struct SystemModeTPMTests {
    static let passcode = SystemModeRealUsersTests.passcode

    @Test func aBoundSystemModeVaultCountsInTheServiceAndTheTPMAndItsStateIsUselessElsewhere() throws {
        try RealUsersTests.ensureUsers()
        let setup = try SystemModeRealUsersTests.Setup()
        defer { try? FileManager.default.removeItem(atPath: setup.base) }
        let tpm = try SoftwareTPM()
        defer { tpm.stop() }
        try tpm.setDictionaryParameters(maximumTries: 20, interval: 600, recovery: 600)
        tpm.openToEveryone()
        var service = try DaemonProcess(
            socket: setup.socket, stateDirectory: setup.base + "/run/state", binary: setup.daemon,
            asUser: RealUsersTests.serviceUser, environment: ["FINGERLOCK_TPM_TCTI": tpm.tcti])
        defer { _ = service.terminate() }
        let alice = RealUsersTests.alice
        let data = setup.base + "/\(alice)/data"
        let common = ["--reader", "simulated", "--data-dir", data, "--socket", setup.socket]
        // Alice's own process may not open the TPM: only the service's does the TPM work.
        let noTPM = ["FINGERLOCK_TPM_TCTI": "device:/dev/tpmrm-absent"]
        func run(_ arguments: [String], _ passcodes: [String] = [], socket: String? = nil) throws -> CommandOutput {
            let options = ["--reader", "simulated", "--data-dir", data, "--socket", socket ?? setup.socket]
            return try setup.fingerlockSeparately(as: alice, options + arguments, passcodes: passcodes, environment: noTPM)
        }
        let set = try setup.fingerlock(as: alice, common + ["passcode", "set", "--passcode-fd", "3"], passcodes: [Self.passcode, Self.passcode])
        try #require(set.status == 0, "\(set.output)")
        let recoveryKey = try #require(set.output.firstMatch(of: /([A-Z0-9]{4}-){12}[A-Z0-9]{4}/).map { String($0.output.0) })
        try #require(try run(["system", "enable", "--passcode-fd", "3"], [Self.passcode]).status == 0)
        let enabled = try run(["tpm", "enable", "--passcode-fd", "3"], [Self.passcode])
        #expect(enabled.status == 0, "\(enabled)")
        let status = try run(["tpm", "status", "--json"])
        #expect(status.stdout.contains("\"bound\" : true") && status.stdout.contains("\"location\" : \"fingerlockd\""), "\(status)")

        // The right passcode opens; a wrong one is counted by the service and by the TPM.
        _ = try run(["lock"])
        #expect(try run(["unlock", "--passcode-fd", "3"], [Self.passcode]).status == 0)
        _ = try run(["lock"])
        let wrong = try run(["unlock", "--passcode-fd", "3"], ["not the passcode"])
        #expect(wrong.status == 1, "\(wrong)")
        #expect(wrong.stderr.contains("fingerlockd counts 1 wrong"), "\(wrong)")
        #expect(try tpm.lockoutCounter() == 1)
        #expect(try run(["unlock", "--passcode-fd", "3"], [Self.passcode]).status == 0)

        // The service's state is not Alice's to read.
        let state = setup.base + "/run/state"
        let listed = try runCommandSeparately("/usr/sbin/runuser", ["-u", alice, "--", "/usr/bin/find", state, "-type", "f"], timeout: 30)
        #expect(listed.status != 0 || listed.stdout.isEmpty, "\(listed)")

        // A copy of the service's state and of Alice's vault, on a machine with another TPM: nothing opens.
        let other = try SoftwareTPM()
        defer { other.stop() }
        other.openToEveryone()
        _ = service.terminate()
        let copy = setup.base + "/run2/state"
        #expect(try runCommand("/bin/cp", ["-a", state, copy]).0 == 0)
        let elsewhere = try DaemonProcess(
            socket: setup.base + "/run2/socket", stateDirectory: copy, binary: setup.daemon,
            asUser: RealUsersTests.serviceUser, environment: ["FINGERLOCK_TPM_TCTI": other.tcti])
        defer { _ = elsewhere.terminate() }
        let refused = try run(["unlock", "--passcode-fd", "3"], [Self.passcode], socket: setup.base + "/run2/socket")
        #expect(refused.status == 4, "\(refused)")
        #expect(refused.stderr.contains("sealed by another TPM"), "\(refused)")
        #expect(refused.stderr.contains("recovery key"), "\(refused)")
        #expect(try other.lockoutCounter() == 0)
        _ = elsewhere.terminate()

        // The same service without any TPM: refused, and the recovery key still opens the vault.
        service = try DaemonProcess(
            socket: setup.socket, stateDirectory: state, binary: setup.daemon, asUser: RealUsersTests.serviceUser,
            environment: ["FINGERLOCK_TPM_TCTI": "device:/dev/tpmrm-absent"])
        let absent = try run(["unlock", "--passcode-fd", "3"], [Self.passcode])
        #expect(absent.status == 4 && absent.stderr.contains("no TPM at /dev/tpmrm-absent"), "\(absent)")
        let reset = try run(["passcode", "reset", "--passcode-fd", "3"], [recoveryKey, "after the reset", "after the reset"])
        #expect(reset.status == 0, "\(reset)")
        #expect(try run(["unlock", "--passcode-fd", "3"], ["after the reset"]).status == 0)
    }
}
