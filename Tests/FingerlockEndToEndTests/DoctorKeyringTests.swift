import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

/// `doctor`'s keyring finding tests `@u` as the key cache uses it: in a session keyring of its own
/// that does not link `@u`, or one revoked (a tmux started by `runuser`: pam_keyinit revokes the
/// session keyring when that session ends), the cache still works, and doctor says so; it said
/// "not usable" there once, from a probe that needed `@u` in reach.
@Suite(.timed, .timeLimit(.minutes(2))) struct DoctorKeyringTests {
    let runner = BinaryRunner(extraEnvironment: ["FINGERLOCK_READER": "simulated"])

    @Test(
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/keyctl")),
        arguments: [
            ["/usr/bin/keyctl", "session", "-", "/bin/sh", "-c", "exec \"$0\" \"$@\""],
            ["/usr/bin/keyctl", "session", "-", "/bin/sh", "-c", "keyctl revoke @s && exec \"$0\" \"$@\""],
        ])
    func aSessionKeyringWithoutUserKeyringInReachStillCaches(_ launcher: [String]) async throws {
        try await runner.setPasscode()
        let doctor = try await runner.run(["doctor", "--json"], launcher: launcher)
        let findings = try #require(JSONSerialization.jsonObject(with: Data(doctor.stdout.utf8)) as? [[String: Any]], "\(doctor)")
        let keyring = try #require(findings.first { $0["check"] as? String == "keyring" })
        #expect(keyring["status"] as? String == "ok", "\(keyring)")
        // And so it is: the passcode caches the key there, and status finds it.
        #expect(try await runner.run(["lock"], launcher: launcher).status == 0)
        let unlocked = try await runner.run(["unlock", "--passcode-stdin"], stdin: "\(BinaryRunner.passcode)\n", launcher: launcher)
        #expect(unlocked.status == 0, "\(unlocked.stderr)")
        let status = try await runner.run(["status", "--json"], launcher: launcher)
        #expect(status.stdout.contains("\"unlocked\" : true"), "\(status.stdout)")
    }
}
