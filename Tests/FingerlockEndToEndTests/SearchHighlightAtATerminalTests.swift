import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

@testable import FingerlockCLI

/// `notes search`'s snippet highlighted on a terminal only, through the built binary in a
/// pseudo-terminal (the rest of the search habits are tested in process: `SearchHabitsTests`).
@Suite(.timed, .timeLimit(.minutes(3))) struct SearchHighlightAtATerminalTests {
    let runner = BinaryRunner(extraEnvironment: ["FINGERLOCK_READER": "simulated"])
    let touch = ["FINGERLOCK_SIMULATED_TOUCHES": "right-thumb"]

    init() async throws {
        try await runner.setPasscode()
        #expect(try await runner.enroll("right-thumb", touches: "right-thumb*5").status == 0)
        for (title, body) in [
            ("fruit salad", "kiwi and mango\n"), ("kiwi jam", "sugar\n"), ("door", "hunter2\nthe door code is 4711 ok\n"),
            ("long", String(repeating: "a", count: 50) + "NEEDLE" + String(repeating: "b", count: 50)),
        ] {
            let added = try await runner.run(["notes", "add", "--title", title], environment: touch, stdin: body)
            try #require(added.status == 0, "\(added.stderr)")
        }
    }

    func titles(_ arguments: [String]) async throws -> [String] {
        let result = try await runner.run(arguments + ["--json"], environment: touch)
        #expect(result.status == 0 || result.status == 1, "\(result.stderr)")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        return rows.compactMap { $0["title"] as? String }
    }

    @Test func theSnippetIsHighlightedOnATerminalOnly() async throws {
        let environment = runner.environment.merging(touch) { $1 }
        let colour = try PseudoTerminalSession(
            arguments: ["notes", "search", "needle"], environment: environment.merging(["TERM": "xterm", "PAGER": "cat"]) { $1 })
        #expect(await colour.waitForExit() == 0)
        #expect(colour.output.contains("\u{1B}[1;31mNEEDLE\u{1B}[0m"), "\(colour.output.debugDescription)")
        let plain = try PseudoTerminalSession(
            arguments: ["notes", "search", "needle"],
            environment: environment.merging(["TERM": "xterm", "PAGER": "cat", "NO_COLOR": "1"]) { $1 })
        #expect(await plain.waitForExit() == 0)
        #expect(plain.output.contains("aaaNEEDLEbbb"))
        #expect(!plain.output.contains("\u{1B}["))
    }

}
