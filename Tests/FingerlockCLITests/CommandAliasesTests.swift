import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

/// The names people bring from neighbouring tools, in process: pass/gopass's `ls` and `new`
/// are `list` and `add`.
@Suite(.timed, .timeLimit(.minutes(2))) struct CommandAliasesTests {
    let runner = InProcessCLI(extraEnvironment: ["FINGERLOCK_READER": "simulated"])
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
}
