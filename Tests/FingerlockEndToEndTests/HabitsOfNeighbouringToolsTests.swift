import Foundation
import Testing

/// Habits from neighbouring tools, through the binary: pass/gopass's `ls` and `new`, and a passcode
/// "change" to the same passcode refused.
@Suite(.timeLimit(.minutes(2))) struct HabitsOfNeighbouringToolsTests {
    let runner = BinaryRunner(extraEnvironment: ["FINGERLOCK_READER": "simulated"])
    let touch = ["FINGERLOCK_SIMULATED_TOUCHES": "right-thumb"]

    @Test func lsAndNewAreListAndAdd() async throws {
        try await runner.setPasscode()
        #expect(try await runner.enroll("right-thumb", touches: "right-thumb*5").status == 0)
        let added = try await runner.run(["notes", "new", "--title", "from new"], environment: touch, stdin: "body\n")
        #expect(added.status == 0, "\(added.stderr)")
        let listed = try await runner.run(["notes", "list", "--json"], environment: touch)
        let ls = try await runner.run(["notes", "ls", "--json"], environment: touch)
        #expect(ls.status == 0)
        #expect(ls.stdout == listed.stdout)
        #expect(ls.stdout.contains("from new"))
    }

    @Test func changingToTheSamePasscodeIsRefused() async throws {
        try await runner.setPasscode()
        let same = BinaryRunner.passcode
        let result = try await runner.run(["passcode", "change", "--passcode-stdin"], stdin: "\(same)\n\(same)\n\(same)\n")
        #expect(result.status == 64)
        #expect(result.stderr == "fingerlock: The new passcode is the same as the current one; nothing was changed.\n")
        // Still the old passcode, and it still opens the vault.
        #expect(try await runner.run(["unlock", "--passcode-stdin"], stdin: "\(same)\n").status == 0)
    }
}
