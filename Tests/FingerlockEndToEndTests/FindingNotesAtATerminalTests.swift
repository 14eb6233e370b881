import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

/// Highlighting and the pager only on a terminal, never when piped, through the built binary
/// (`search --title`, `--since`/`--until`, `--sort`, `-n` are tested in process: `FindingNotesTests`).
@Suite(.timed, .timeLimit(.minutes(3))) struct FindingNotesAtATerminalTests {
    let runner = BinaryRunner(extraEnvironment: ["FINGERLOCK_READER": "simulated"])
    let touch = ["FINGERLOCK_SIMULATED_TOUCHES": "right-thumb"]
    /// A "pager" that marks what went through it and shows how less would have been restrained.
    let markingPager = "echo \"PAGED secure=$LESSSECURE history=$LESSHISTFILE allow=${LESSSECURE_ALLOW-unset}\"; sed 's/^/| /'"

    init() async throws {
        try await runner.setPasscode()
        #expect(try await runner.enroll("right-thumb", touches: "right-thumb*5").status == 0)
    }

    @discardableResult
    func add(_ body: String, title: String) async throws -> String {
        let result = try await runner.run(["notes", "add", "--title", title], environment: touch, stdin: body)
        #expect(result.status == 0, "\(result.stderr)")
        return String(result.stdout.split(separator: " ")[1].dropLast())
    }

    func titles(_ arguments: [String]) async throws -> [String] {
        let result = try await runner.run(arguments + ["--json"], environment: touch)
        #expect(result.status == 0 || result.status == 1, "\(result.stderr)")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        return rows.compactMap { $0["title"] as? String }
    }

    static func day(_ offset: Int) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd"
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date().addingTimeInterval(Double(offset) * 86_400))
    }

    @Test func pipedOutputIsNeverHighlightedNorPaged() async throws {
        try await add("x", title: "Mango")
        let environment = touch.merging(["PAGER": markingPager, "TERM": "xterm"]) { $1 }
        for command in [["notes", "search", "an"], ["notes", "list"]] {
            let result = try await runner.run(command, environment: environment)
            #expect(result.status == 0)
            #expect(result.stdout.hasSuffix("  Mango\n"))
            #expect(!result.stdout.contains("\u{1B}"))
            #expect(!result.stdout.contains("PAGED"))
        }
    }

    func terminal(_ arguments: [String], _ environment: [String: String], rows: UInt16? = 40) throws -> PseudoTerminalSession {
        try PseudoTerminalSession(
            arguments: arguments, environment: runner.environment.merging(touch.merging(environment) { $1 }) { $1 }, rows: rows)
    }

    @Test func matchesAreHighlightedOnATerminalButNotWithNoColor() async throws {
        try await add("x", title: "Mango")
        let colour = try terminal(["notes", "search", "AN"], ["TERM": "xterm", "PAGER": "cat"])
        #expect(await colour.waitForExit() == 0)
        #expect(colour.output.contains("M\u{1B}[1;31man\u{1B}[0mgo"))
        let plain = try terminal(["notes", "search", "AN"], ["TERM": "xterm", "PAGER": "cat", "NO_COLOR": "1"])
        #expect(await plain.waitForExit() == 0)
        #expect(plain.output.contains("  Mango"))
        #expect(!plain.output.contains("\u{1B}["))
    }

    @Test func longOutputOnATerminalGoesThroughThePagerWithLessRestrained() async throws {
        var id = ""
        for index in 1...6 { id = try await add("x", title: "note \(index)") }
        // Five rows cannot hold six notes.
        let list = try terminal(["notes", "list"], ["TERM": "xterm", "PAGER": markingPager, "LESSSECURE_ALLOW": "save"], rows: 5)
        #expect(await list.waitForExit() == 0)
        #expect(list.output.contains("PAGED secure=1 history=- allow=unset"))
        #expect(list.output.contains("| ") && list.output.contains("note 6"))
        // Not less: the user is told it may keep what it shows.
        #expect(list.output.contains("may save what it shows"))
        // A note is long when it is taller than the window: title, details, a blank line and the body.
        let show = try terminal(["notes", "show", id], ["TERM": "xterm", "PAGER": markingPager], rows: 3)
        #expect(await show.waitForExit() == 0)
        #expect(show.output.contains("PAGED secure=1"))
    }

    @Test func shortOutputOrNoPagerIsWrittenStraight() async throws {
        try await add("x", title: "only one")
        let short = try terminal(["notes", "list"], ["TERM": "xterm", "PAGER": markingPager], rows: 40)
        #expect(await short.waitForExit() == 0)
        #expect(short.output.contains("only one"))
        #expect(!short.output.contains("PAGED"))
        for index in 1...4 { try await add("x", title: "more \(index)") }
        let off = try terminal(["notes", "list"], ["TERM": "xterm", "PAGER": "cat"], rows: 3)
        #expect(await off.waitForExit() == 0)
        #expect(off.output.contains("more 4"))
        #expect(!off.output.contains("may save"))
    }

    @Test func lessShowsTheListAndQuits() async throws {
        for index in 1...6 { try await add("x", title: "row \(index)") }
        // The default pager, less -FRX, in a window too small for the list: it waits for `q`.
        let list = try terminal(["notes", "list"], ["TERM": "xterm"], rows: 4)
        await list.expect("row ")
        list.send("q")
        #expect(await list.waitForExit() == 0)
        #expect(!list.output.contains("may save"))
    }
}

extension FindingNotesAtATerminalTests {
    @Test func aDumbTerminalOrOneWithoutASizeIsNotPaged() async throws {
        for index in 1...4 { try await add("x", title: "plain \(index)") }
        let dumb = try terminal(["notes", "list"], ["TERM": "dumb", "PAGER": markingPager], rows: 2)
        #expect(await dumb.waitForExit() == 0)
        #expect(dumb.output.contains("plain 4"))
        #expect(!dumb.output.contains("PAGED"))
        let sizeless = try terminal(["notes", "list"], ["TERM": "xterm", "PAGER": markingPager], rows: nil)
        #expect(await sizeless.waitForExit() == 0)
        #expect(sizeless.output.contains("plain 4"))
        #expect(!sizeless.output.contains("PAGED"))
    }
}
