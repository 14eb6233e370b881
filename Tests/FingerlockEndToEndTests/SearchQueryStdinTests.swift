import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

/// `notes search --query-stdin`: the text searched for never goes through argv.
@Suite(.timed, .timeLimit(.minutes(3))) struct SearchQueryStdinTests {
    let runner: BinaryRunner
    let touch = ["FINGERLOCK_SIMULATED_TOUCHES": "right-thumb"]

    init() async throws {
        runner = BinaryRunner(extraEnvironment: ["FINGERLOCK_READER": "simulated"])
        try await runner.setPasscode()
        #expect(try await runner.enroll("right-thumb", touches: "right-thumb*5").status == 0)
        #expect(try await runner.run(["notes", "add", "--title", "Safe"], environment: touch, stdin: "combination 31-4-15\n").status == 0)
        #expect(try await runner.run(["notes", "add", "--title", "Other"], environment: touch, stdin: "nothing here\n").status == 0)
    }

    func titles(_ result: BinaryRunner.Result) throws -> [String] {
        let notes = try #require(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        return notes.compactMap { $0["title"] as? String }
    }

    @Test func theQueryComesFromStdinWithItsLineEndingRemoved() async throws {
        for input in ["31-4-15\n", "31-4-15\r\n", "31-4-15"] {
            let found = try await runner.run(["notes", "search", "--query-stdin", "--json"], environment: touch, stdin: input)
            #expect(found.status == 0, "\(found.stderr)")
            #expect(try titles(found) == ["Safe"])
        }
    }

    @Test func noMatchDoesNotEchoTheQuery() async throws {
        let none = try await runner.run(["notes", "search", "--query-stdin"], environment: touch, stdin: "secret-not-there\n")
        // No hit exits 1, as grep; the sentence goes to stderr, so stdout holds results only.
        #expect(none.status == 1)
        #expect(none.stdout.isEmpty)
        #expect(none.stderr == "No note matches the query.\n")
    }

    @Test func withThePasscodeFromADescriptorTheQueryStillComesFromStdin() async throws {
        let file = runner.dataDirectory + "-passcode"
        try "\(BinaryRunner.passcode)\n".write(toFile: file, atomically: true, encoding: .utf8)
        let found = try await runner.run(
            ["notes", "search", "--query-stdin", "--json", "--passcode-fd", "3"], stdin: "combination\n", descriptorsFromFiles: [3: file])
        #expect(found.status == 0, "\(found.stderr)")
        #expect(try titles(found) == ["Safe"])
    }

    @Test(arguments: [
        (["--query-stdin", "--passcode-stdin"], "\(BinaryRunner.passcode)\ncombination\n", "cannot share stdin"),
        (["--query-stdin", "combination"], "combination\n", "not both"),
        ([], "", "--query-stdin"),
        (["--query-stdin"], "", "empty"),
        (["--query-stdin"], "\n", "empty"),
        (["--query-stdin"], "one\ntwo\n", "one line"),
    ])
    func refusedCombinationsAreUsageErrors(arguments: [String], stdin: String, explanation: String) async throws {
        let result = try await runner.run(["notes", "search"] + arguments, environment: touch, stdin: stdin)
        #expect(result.status == 64)
        #expect(result.stderr.contains(explanation), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(result.stdout.isEmpty)
    }
}
