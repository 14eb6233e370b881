import Foundation
import Testing

/// The simulated reader asking a person at the terminal which finger touches.
@Suite(.timeLimit(.minutes(1))) struct InteractiveSimulatedReaderTests {
    let runner = BinaryRunner(extraEnvironment: ["FINGERLOCK_READER": "simulated", "TERM": "dumb"])

    func session(_ arguments: [String]) throws -> PseudoTerminalSession {
        try PseudoTerminalSession(arguments: arguments, environment: runner.environment)
    }

    @Test func typedFingerNamesEnrollAndMatch() throws {
        let enroll = try session(["enroll", "right-thumb"])
        for stage in 1...5 {
            enroll.expect("touch \(stage)/5 for right-thumb")
            enroll.send(stage == 2 ? "left-thumb\n" : "right-thumb\n")
            if stage == 2 {
                enroll.expect("The scan did not work")
                enroll.expect("touch 2/5 for right-thumb")
                enroll.send("right-thumb\n")
            }
        }
        #expect(enroll.waitForExit() == 0)
        #expect(enroll.output.contains("Enrolled right-thumb"))

        let verify = try session(["verify"])
        verify.expect("type a finger name, or Enter for the passcode")
        verify.send("wrist\n")
        verify.expect("'wrist' is not a finger")
        verify.send("right-thumb\n")
        #expect(verify.waitForExit() == 0)
        #expect(verify.output.contains("Match: right-thumb"))
    }

    @Test func enterChoosesThePasscodeInstead() throws {
        _ = try runner.run(["enroll", "right-thumb"], environment: ["FINGERLOCK_SIMULATED_TOUCHES": "right-thumb*5"])
        let verify = try session(["verify"])
        verify.expect("Enter for the passcode")
        verify.send("\n")
        // No passcode exists before the vault does: choosing it cancels the check.
        #expect(verify.waitForExit() == 2)
        #expect(verify.output.contains("passcode was chosen"))
    }

    @Test func ctrlCDuringEnrollmentSavesNothing() throws {
        let enroll = try session(["enroll", "left-thumb"])
        enroll.expect("touch 1/5")
        enroll.send("left-thumb\n")
        enroll.expect("touch 2/5")
        enroll.send("\u{03}")
        #expect(enroll.waitForExit() == 2)
        #expect(enroll.output.contains("Enrollment cancelled; nothing was saved."))
        let fingers = try runner.run(["fingers", "--json"])
        #expect(!fingers.stdout.contains("left-thumb"))
    }
}
