import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

/// Finding notes, in process: `search --title`, `--since`/`--until`, `--sort`, `-n` (highlighting and
/// the pager on a terminal: `FindingNotesAtATerminalTests`).
@Suite(.timed, .timeLimit(.minutes(3))) struct FindingNotesTests {
    let runner = InProcessCLI(extraEnvironment: ["FINGERLOCK_READER": "simulated"])
    let touch = ["FINGERLOCK_SIMULATED_TOUCHES": "right-thumb"]

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

    @Test func titleSearchLooksAtTitlesOnly() async throws {
        try await add("kiwi inside", title: "fruit salad")
        try await add("nothing", title: "kiwi jam")
        #expect(Set(try await titles(["notes", "search", "kiwi"])) == ["fruit salad", "kiwi jam"])
        #expect(try await titles(["notes", "search", "kiwi", "--title"]) == ["kiwi jam"])
        #expect(try await runner.run(["notes", "search", "inside", "--title"], environment: touch).status == 1)
    }

    @Test func sinceAndUntilAreWholeDaysOfTheModifiedDate() async throws {
        try await add("x", title: "today")
        #expect(try await titles(["notes", "list", "--since", Self.day(0)]) == ["today"])
        #expect(try await titles(["notes", "list", "--until", Self.day(0)]) == ["today"])
        #expect(try await titles(["notes", "list", "--since", Self.day(-1), "--until", Self.day(1)]) == ["today"])
        #expect(try await titles(["notes", "list", "--until", Self.day(-1)]).isEmpty)
        #expect(try await titles(["notes", "list", "--since", Self.day(1)]).isEmpty)
        #expect(try await titles(["notes", "search", "x", "--since", Self.day(1)]).isEmpty)
        let none = try await runner.run(["notes", "list", "--since", Self.day(1)], environment: touch)
        #expect(none.stdout == "No note is modified since \(Self.day(1)).\n")
    }

    @Test(arguments: [
        ["--since", "2024-02-30"], ["--since", "2024-2-01"], ["--until", "the day before"], ["--until", "2024-01-01T00:00"],
        ["--since", "2024-03-02", "--until", "2024-03-01"], ["-n", "0"], ["--sort", "size"],
    ])
    func badDaysCountsAndOrdersAreOneLineUsageErrors(options: [String]) async throws {
        for command in [["notes", "list"], ["notes", "search", "x"]] {
            let result = try await runner.run(command + options)
            #expect(result.status == 64, "\(command + options): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1)
        }
    }

    @Test func sortAndCount() async throws {
        let banana = try await add("b", title: "banana")
        try await add("a", title: "Apple")
        try await add("c", title: "cherry")
        // Edited last: newest modified, but oldest created.
        #expect(try await runner.run(["notes", "edit", banana, "--title", "Banana"], environment: touch).status == 0)
        #expect(try await titles(["notes", "list"]) == ["Banana", "cherry", "Apple"])
        #expect(try await titles(["notes", "list", "--sort", "created"]) == ["cherry", "Apple", "Banana"])
        #expect(try await titles(["notes", "list", "--sort", "title"]) == ["Apple", "Banana", "cherry"])
        #expect(try await titles(["notes", "list", "--sort", "title", "-n", "2"]) == ["Apple", "Banana"])
        #expect(try await titles(["notes", "search", "a", "--title", "--sort", "title", "--max-count", "1"]) == ["Apple"])
        // In the default order the vault cuts the listing itself.
        #expect(try await titles(["notes", "list", "-n", "2"]) == ["Banana", "cherry"])
        #expect(try await titles(["notes", "list", "--sort", "created", "-n", "1"]) == ["cherry"])
        #expect(try await titles(["notes", "search", "a", "--title", "-n", "1"]) == ["Banana"])
    }

}
