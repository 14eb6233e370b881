import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

@testable import FingerlockCLI

/// `notes search` as grep and pass users expect it: several words ANDed, a snippet of where the
/// body matched, days as people say them, `-n1`.
@Suite(.timed, .timeLimit(.minutes(3))) struct SearchHabitsTests {
    let runner = InProcessCLI(extraEnvironment: ["FINGERLOCK_READER": "simulated"])
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

    @Test func everyWordMustMatchSomewhere() async throws {
        #expect(try await titles(["notes", "search", "kiwi"]).sorted() == ["fruit salad", "kiwi jam"])
        #expect(try await titles(["notes", "search", "kiwi", "MANGO"]) == ["fruit salad"])
        // One word in the title, the other in the body.
        #expect(try await titles(["notes", "search", "kiwi", "sugar"]) == ["kiwi jam"])
        #expect(try await titles(["notes", "search", "kiwi", "jam", "--title"]) == ["kiwi jam"])
        let none = try await runner.run(["notes", "search", "kiwi", "pear"], environment: touch)
        #expect(none.status == 1)
        #expect(none.stderr == "No note contains \"kiwi\" and \"pear\".\n")
        let titleOnly = try await runner.run(["notes", "search", "sugar", "--title"], environment: touch)
        #expect(titleOnly.status == 1)
        #expect(titleOnly.stderr == "No note title contains \"sugar\".\n")
    }

    @Test func aBodyHitShowsASnippetOnItsLine() async throws {
        let door = try await runner.run(["notes", "search", "4711"], environment: touch)
        #expect(door.status == 0)
        // Only the line that matched, as `pass grep` shows it: never the password on the line above.
        #expect(door.stdout.hasSuffix("  door  — the door code is 4711 ok\n"), "\(door.stdout.debugDescription)")
        #expect(!door.stdout.contains("hunter2"))
        let long = try await runner.run(["notes", "search", "needle"], environment: touch)
        let snippet = "…" + String(repeating: "a", count: 30) + "NEEDLE" + String(repeating: "b", count: 30) + "…"
        #expect(long.stdout.hasSuffix("  long  — \(snippet)\n"), "\(long.stdout.debugDescription)")
        // A title hit has no snippet; the lines stay one per note.
        let title = try await runner.run(["notes", "search", "jam"], environment: touch)
        #expect(title.stdout.hasSuffix("  kiwi jam\n"))
        #expect(!title.stdout.contains("—"))
        let json = try await runner.run(["notes", "search", "4711", "--json"], environment: touch)
        #expect(!json.stdout.contains("door code") && !json.stdout.contains("—"))
    }

    @Test func daysAsPeopleSayThemAndNOne() async throws {
        for day in ["today", "3 days ago", "last week", "2 weeks ago", "yesterday"] {
            #expect(try await titles(["notes", "list", "--since", day]).count == 4, "\(day)")
        }
        #expect(try await titles(["notes", "list", "--until", "yesterday"]).isEmpty)
        let weekday = UTCDay.weekdays[(Int((Date().timeIntervalSince1970 / 86_400).rounded(.down)) + 4) % 7]
        #expect(try await titles(["notes", "list", "--since", weekday]).count == 4)
        let bad = try await runner.run(["notes", "list", "--since", "someday"])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("--since takes a day as YYYY-MM-DD (UTC), such as 2024-03-31, or today, yesterday"))
        #expect(try await titles(["notes", "list", "-n1"]).count == 1)
        #expect(try await titles(["notes", "search", "kiwi", "-n1"]).count == 1)
    }

    @Test func naturalDaysCountBackFromToday() throws {
        // 2024-01-03 12:00 UTC, a Wednesday.
        let now = Date(timeIntervalSince1970: 1_704_283_200)
        let cases: [(String, Int?)] = [
            ("today", 0), ("Yesterday", 1), ("last week", 7), ("3 days ago", 3), ("1 day ago", 1), ("2 weeks ago", 14),
            ("wednesday", 0), ("monday", 2), ("Mon", 2), ("last thursday", 6), ("sun", 3), ("someday", nil), ("3 ago", nil),
            ("-1 days ago", nil),
        ]
        for (text, expected) in cases {
            #expect(UTCDay.naturalDaysBack(text, now: now) == expected, "\(text)")
        }
        #expect(try UTCDay.start("monday", option: "--since", now: now) == Date(timeIntervalSince1970: 1_704_067_200))
    }

    @Test func anAttachedCountIsSplit() {
        #expect(FingerlockMain.splittingAttachedCounts(["notes", "list", "-n1"]) == ["notes", "list", "-n", "1"])
        #expect(FingerlockMain.splittingAttachedCounts(["notes", "show", "--", "-n1"]) == ["notes", "show", "--", "-n1"])
        #expect(FingerlockMain.splittingAttachedCounts(["-nx", "-n"]) == ["-nx", "-n"])
    }
}
