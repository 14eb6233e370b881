import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

/// `doctor` under a revoked session keyring (a tmux started by `runuser`: pam_keyinit revokes the
/// session keyring when that session ends): the finding names the cause and the way back.
@Suite(.timed, .timeLimit(.minutes(2))) struct DoctorKeyringTests {
    let runner = BinaryRunner(extraEnvironment: ["FINGERLOCK_READER": "simulated"])

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/keyctl")))
    func aRevokedSessionKeyringIsNamed() async throws {
        // A session keyring of its own, revoked, then fingerlock in it.
        let launcher = ["/usr/bin/keyctl", "session", "-", "/bin/sh", "-c", "keyctl revoke @s && exec \"$0\" \"$@\""]
        let result = try await runner.run(["doctor", "--json"], launcher: launcher)
        #expect(result.status == 1, "\(result.stderr)")
        let findings = try #require(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]], "\(result)")
        let keyring = try #require(findings.first { $0["check"] as? String == "keyring" })
        #expect(keyring["status"] as? String == "error")
        #expect((keyring["message"] as? String)?.hasPrefix("This shell's session keyring was revoked") == true, "\(keyring)")
        #expect(keyring["fix"] as? String == "run `keyctl new_session && keyctl link @u @s` in this shell, or log in anew")

        // The fix given works: a new session keyring with @u linked.
        let fixed = [
            "/usr/bin/keyctl", "session", "-", "/bin/sh", "-c",
            "keyctl revoke @s && keyctl new_session >/dev/null && keyctl link @u @s && exec \"$0\" \"$@\"",
        ]
        let after = try await runner.run(["doctor", "--json"], launcher: fixed)
        let again = try #require(JSONSerialization.jsonObject(with: Data(after.stdout.utf8)) as? [[String: Any]], "\(after)")
        #expect(again.first { $0["check"] as? String == "keyring" }?["status"] as? String == "ok")
    }
}
