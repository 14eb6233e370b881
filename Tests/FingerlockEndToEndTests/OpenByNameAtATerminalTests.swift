import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

@testable import FingerlockCLI

/// A person at a terminal opens a note by name with one touch (the naming rules themselves are
/// tested in process: FingerlockCLITests' `OpenByNameTests`).
@Suite(.timed, .timeLimit(.minutes(3))) struct OpenByNameAtATerminalTests {
    /// One touch per run: a second one would find the script used up and time out.
    let touch = ["FINGERLOCK_SIMULATED_TOUCHES": "right-thumb"]

    /// A vault with notes like a password store's; returns each title's id.
    func vault() async throws -> (BinaryRunner, [String: String]) {
        let runner = BinaryRunner(extraEnvironment: ["FINGERLOCK_READER": "simulated"])
        try await runner.setPasscode()
        #expect(try await runner.enroll("right-thumb", touches: "right-thumb*5").status == 0)
        var ids: [String: String] = [:]
        for (title, body) in [
            ("Gmail", "hunter2\nuser: me\n"), ("email/work", "pw-work\n"), ("Bank of Foo", "1234\n"), ("Banking app", "pin 9\n"),
            ("wifi", "first line\nsecret two\n"),
        ] {
            let added = try await runner.run(["notes", "add", "--title", title], environment: touch, stdin: body)
            try #require(added.status == 0, "\(added.stderr)")
            ids[title] = String(added.stdout.split(separator: " ")[1].dropLast())
        }
        return (runner, ids)
    }

    @Test func aPersonTypesTheTouchOnceAndTheNoteOpensByName() async throws {
        let (runner, _) = try await vault()
        let session = try PseudoTerminalSession(
            arguments: ["notes", "show", "gmail", "--line", "1"], environment: runner.environment.merging(["TERM": "dumb"]) { $1 })
        await session.expect("type a finger name, or Enter for the passcode")
        session.send("right-thumb\n")
        #expect(await session.waitForExit() == 0)
        #expect(session.output.contains("hunter2"))
        #expect(session.output.components(separatedBy: "type a finger name").count == 2, "\(session.output)")
    }
}
