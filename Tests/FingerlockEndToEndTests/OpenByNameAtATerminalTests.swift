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

    /// A name that fits several notes opens a numbered choice instead of exiting with the list; a
    /// wrong number asks again, and the note chosen opens with the one touch already made.
    @Test func anAmbiguousNameAsksWhichNoteAtATerminal() async throws {
        let (runner, _) = try await vault()
        let session = try PseudoTerminalSession(
            arguments: ["show", "bank", "--line", "1"], environment: runner.environment.merging(touch) { $1 }.merging(["TERM": "dumb"]) { $1 })
        await session.expect("\"bank\" matches 2 notes:")
        await session.expect("Which one (1-2, Enter for none)? ")
        let listed = session.output
        let row = try #require(listed.split(whereSeparator: \.isNewline).first(where: { $0.contains("Banking app") }))
        let number = try #require(row.split(separator: " ").first)
        session.send("9\n")
        await session.expect("Type a number from 1 to 2.")
        session.send("\(number)\n")
        #expect(await session.waitForExit() == 0)
        #expect(session.output.contains("pin 9"))
        #expect(!session.output.contains("1234"))
    }

    @Test func enterAtTheChoiceOpensNothingAndExits2() async throws {
        let (runner, _) = try await vault()
        let session = try PseudoTerminalSession(
            arguments: ["otp", "bank"], environment: runner.environment.merging(touch) { $1 }.merging(["TERM": "dumb"]) { $1 })
        await session.expect("Which one (1-2, Enter for none)? ")
        session.send("\n")
        #expect(await session.waitForExit() == 2)
        #expect(session.output.contains("fingerlock: No note was chosen."))
    }

    /// Where nobody is asked (stdin is not the terminal, --json, an unseen change), the name that
    /// fits several notes stays the one-line error that lists them.
    @Test func withoutAPersonTypingTheAmbiguityIsAnError() async throws {
        let (runner, _) = try await vault()
        for arguments in [["show", "bank", "--json"], ["rm", "bank", "--yes"]] {
            let session = try PseudoTerminalSession(
                arguments: arguments, environment: runner.environment.merging(touch) { $1 }.merging(["TERM": "dumb"]) { $1 })
            #expect(await session.waitForExit() == 64, "\(arguments)")
            #expect(session.output.contains("matches 2 notes"), "\(arguments): \(session.output)")
            #expect(!session.output.contains("Which one"))
        }
        let piped = try await runner.run(["show", "bank"], environment: touch, stdin: "")
        #expect(piped.status == 64)
        #expect(piped.stderr.contains("\"bank\" matches 2 notes by title start"), "\(piped.stderr)" as Comment)
    }
}
