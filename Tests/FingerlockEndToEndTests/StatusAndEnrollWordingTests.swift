import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

/// `status` that does not promise a touch during a lockout nor a window set to 0; `enroll` that says
/// a finger is already enrolled before the passcode, and does not ask again for a passcode given
/// within the reuse window.
@Suite(.timed, .timeLimit(.minutes(3))) struct StatusAndEnrollWordingTests {
    let runner = BinaryRunner(extraEnvironment: ["FINGERLOCK_READER": "simulated"])
    let passcode = "\(BinaryRunner.passcode)\n"

    func status() async throws -> String {
        let result = try await runner.run(["status"])
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout
    }

    @Test func aLockoutIsNotATouchAway() async throws {
        try await runner.setPasscode()
        #expect(try await runner.enroll("right-thumb", touches: "right-thumb*5").status == 0)
        #expect(try await status().contains("a touch opens the vault"))
        for _ in 0..<5 {
            _ = try await runner.run(["verify"], environment: ["FINGERLOCK_SIMULATED_TOUCHES": "unknown*3"])
        }
        // The lockout forgot the key (as in system mode): nothing is left for a touch to release.
        let shown = try await status()
        #expect(shown.contains("state: locked"), "\(shown)")
        #expect(shown.contains("fingerprint: locked out after 5 failed touches; the passcode turns it back on"), "\(shown)")
        #expect(!shown.contains("a touch opens the vault"))
    }

    @Test func aReuseWindowSetToZeroIsNotShown() async throws {
        try await runner.setPasscode()
        #expect(try await runner.run(["config", "set", "reuse-window", "5m", "--passcode-stdin"], stdin: passcode).status == 0)
        #expect(try await runner.run(["unlock", "--passcode-stdin"], stdin: passcode).status == 0)
        #expect(try await status().contains("reuse window: "))
        #expect(try await runner.run(["config", "set", "reuse-window", "0", "--passcode-stdin"], stdin: passcode).status == 0)
        #expect(!(try await status().contains("reuse window")))
        let json = try await runner.run(["status", "--json"])
        let object = try #require(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["reuseWindowSecondsLeft"] is NSNull)
    }

    @Test func anEnrolledFingerIsSaidBeforeThePasscode() async throws {
        try await runner.setPasscode()
        #expect(try await runner.enroll("right-index-finger", touches: "right-index-finger*5").status == 0)
        // The default finger, at a terminal: the question comes first, no passcode prompt.
        let session = try PseudoTerminalSession(
            arguments: ["enroll"],
            environment: runner.environment.merging(["FINGERLOCK_SIMULATED_TOUCHES": "right-index-finger*5", "TERM": "dumb"]) { $1 })
        #expect(await session.expect("right-index-finger is already enrolled on simulated:0 (since "))
        #expect(await session.expect("Replace it? [y/N] "))
        #expect(!session.output.contains("Passcode"))
        session.send("n\r")
        #expect(await session.waitForExit() == 2)
        #expect(session.output.contains("stays enrolled as it was"))
        #expect(!session.output.contains("Passcode"))

        // Without a terminal: one line saying so, still before any passcode (none is given here).
        let scripted = try await runner.run(["enroll"], environment: ["FINGERLOCK_SIMULATED_TOUCHES": "right-index-finger*5"])
        #expect(scripted.status == 64)
        #expect(scripted.stderr.hasPrefix("fingerlock: right-index-finger is already enrolled on simulated:0 (since "))
        #expect(scripted.stderr.hasSuffix("; --replace replaces it, or name another finger. Nothing was changed.\n"))
    }

    @Test func aPasscodeWithinTheReuseWindowIsNotAskedAgainAtEnroll() async throws {
        let touches = ["FINGERLOCK_SIMULATED_TOUCHES": "right-thumb*5"]
        // Reuse window 0 (the default): right after `passcode set`, enroll still needs the passcode.
        try await runner.setPasscode()
        let asked = try await runner.run(["enroll", "right-thumb"], environment: touches)
        #expect(asked.status == 8, "\(asked.stderr)")

        #expect(try await runner.run(["config", "set", "reuse-window", "5m", "--passcode-stdin"], stdin: passcode).status == 0)
        // No passcode source and no terminal: only the passcode just given can let this through.
        let enrolled = try await runner.run(["enroll", "right-thumb"], environment: touches)
        #expect(enrolled.status == 0, "\(enrolled.stderr)")
        #expect(enrolled.stdout.contains("Enrolled right-thumb"))

        // `lock` ends it with the key.
        #expect(try await runner.run(["lock"]).status == 0)
        let afterLock = try await runner.run(["enroll", "left-thumb"], environment: ["FINGERLOCK_SIMULATED_TOUCHES": "left-thumb*5"])
        #expect(afterLock.status == 8, "\(afterLock.stderr)")
    }
}
