import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

/// Enrolling a finger that is already enrolled replaces its print only after a yes (or `--replace`).
@Suite(.timed, .timeLimit(.minutes(3))) struct ReEnrollTests {
    let runner = BinaryRunner(extraEnvironment: ["FINGERLOCK_READER": "simulated"])

    @Test func reEnrollingAsksBeforeReplacing() async throws {
        try await runner.setPasscode()
        #expect(try await runner.enroll("right-index-finger", touches: "right-index-finger*5").status == 0)

        // No terminal, no --replace: refused before any touch, the old print kept.
        let refused = try await runner.enroll("right-index-finger", touches: "left-thumb*5")
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("--replace"))
        #expect(!refused.stdout.contains("stage"))
        let stillMatches = try await runner.run(
            ["verify"], environment: ["FINGERLOCK_SIMULATED_TOUCHES": "right-index-finger"])
        #expect(stillMatches.status == 0)

        // --replace: the new print replaces the old one.
        let replaced = try await runner.run(
            ["enroll", "right-index-finger", "--replace", "--passcode-stdin"],
            environment: ["FINGERLOCK_SIMULATED_TOUCHES": "right-index-finger*5"], stdin: "\(BinaryRunner.passcode)\n")
        #expect(replaced.status == 0, "\(replaced.stderr)")
        let fingers = try await runner.run(["fingers", "--json", "--passcode-stdin"], stdin: "\(BinaryRunner.passcode)\n")
        let list = try #require(JSONSerialization.jsonObject(with: Data(fingers.stdout.utf8)) as? [[String: Any]])
        #expect(list.count == 1)
    }
}
