import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

@testable import FingerlockCLI

/// What cannot work is refused before anything asks for a touch or the passcode: no touch is
/// scripted here, so reaching the reader would time out (exit 8 or 1), not exit 64.
@Suite(.timed, .timeLimit(.minutes(2))) struct EarlyRefusalTests {
    let runner = BinaryRunner(extraEnvironment: ["FINGERLOCK_READER": "simulated", "FINGERLOCK_SIMULATED_TOUCHES": "timeout"])

    // Any other word may be a title, which only the open vault can tell.
    @Test(arguments: [["notes", "show", ""], ["notes", "edit", "two\nlines"], ["notes", "rm", "--yes", String(repeating: "x", count: 4097)]])
    func whatCannotNameANoteIsRefusedFirst(_ arguments: [String]) async throws {
        try await runner.setPasscode()
        let result = try await runner.run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.contains("is not a note id, the start of one, or a title"), "\(result.stderr)")
        #expect(!result.stderr.contains("No finger was detected"))
    }

    @Test(arguments: [["notes", "add"], ["notes", "edit", "abc"]])
    func noEditorIsRefusedFirst(_ arguments: [String]) async throws {
        try await runner.setPasscode()
        // No PATH with an editor on it either (`editor`, `vi` or `nano` would be the fallback).
        let session = try PseudoTerminalSession(
            arguments: arguments, environment: runner.environment.merging(["TERM": "dumb", "PATH": runner.home]) { $1 })
        #expect(await session.waitForExit() == 64)
        #expect(session.output.contains("Set $VISUAL or $EDITOR to edit notes"))
        #expect(!session.output.contains("touch") && !session.output.contains("Passcode"))
    }
}
