import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

/// `passcode change`, in process.
@Suite(.timed, .timeLimit(.minutes(2))) struct PasscodeChangeTests {
    let runner = InProcessCLI(extraEnvironment: ["FINGERLOCK_READER": "simulated"])

    @Test func changingToTheSamePasscodeIsRefused() async throws {
        try await runner.setPasscode()
        let same = InProcessCLI.passcode
        let result = try await runner.run(["passcode", "change", "--passcode-stdin"], stdin: "\(same)\n\(same)\n\(same)\n")
        #expect(result.status == 64)
        #expect(result.stderr == "fingerlock: The new passcode is the same as the current one; nothing was changed.\n")
        // Still the old passcode, and it still opens the vault.
        #expect(try await runner.run(["unlock", "--passcode-stdin"], stdin: "\(same)\n").status == 0)
    }
}
