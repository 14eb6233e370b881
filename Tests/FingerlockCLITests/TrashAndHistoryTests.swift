import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

/// `notes rm` to the trash, `notes trash` (list, restore, empty), `notes history` (list, --show,
/// --restore), through the built binary.
@Suite(.timed, .timeLimit(.minutes(3))) struct TrashAndHistoryTests {
    let runner = InProcessCLI(extraEnvironment: ["FINGERLOCK_READER": "simulated"])
    let touch = ["FINGERLOCK_SIMULATED_TOUCHES": "right-thumb"]

    func setUp() async throws {
        try await runner.setPasscode()
        #expect(try await runner.enroll("right-thumb", touches: "right-thumb*5").status == 0)
    }

    func add(_ body: String, title: String) async throws -> String {
        let result = try await runner.run(["notes", "add", "--title", title], environment: touch, stdin: body)
        #expect(result.status == 0, "\(result.stderr)")
        return String(result.stdout.split(separator: " ")[1].dropLast())
    }

    func json(_ arguments: [String]) async throws -> Any {
        let result = try await runner.run(arguments + ["--json"], environment: touch)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
    }

    @Test func rmSeveralGoesToTheTrashAndComesBack() async throws {
        try await setUp()
        let first = try await add("one", title: "First")
        let second = try await add("two", title: "Second")
        let third = try await add("three", title: "Third")
        let removed = try await runner.run(["notes", "rm", first, second, "--yes"], environment: touch)
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(removed.stdout == "Moved \(first) to the trash: First\nMoved \(second) to the trash: Second\n")
        let listed = try #require(try await json(["notes", "list"]) as? [[String: Any]])
        #expect(listed.map { $0["id"] as? String }.map { $0?.prefix(8) } == [Substring(third)])
        let gone = try await runner.run(["notes", "show", first], environment: touch)
        #expect(gone.status == 5)
        #expect(gone.stderr.contains("notes trash restore \(first)"))

        let trash = try #require(try await json(["notes", "trash"]) as? [[String: Any]])
        #expect(Set(trash.compactMap { $0["title"] as? String }) == ["First", "Second"])
        #expect(trash.allSatisfy { Set($0.keys) == ["id", "title", "tags", "created", "modified", "deleted"] })
        let text = try await runner.run(["notes", "trash"], environment: touch)
        #expect(text.stdout.contains("\(first)  deleted ") && text.stdout.contains("First"))

        let restored = try await runner.run(["notes", "trash", "restore", first], environment: touch)
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(restored.stdout == "Restored \(first): First\n")
        #expect(try await runner.run(["notes", "show", first, "--body"], environment: touch).stdout == "one")

        // By title too, as `notes show` takes one (Second is still in the trash); a title found only
        // in the trash is named as such.
        let shownByTitle = try await runner.run(["notes", "show", "Second"], environment: touch)
        #expect(shownByTitle.status == 5)
        #expect(shownByTitle.stderr.contains("is in the trash: `fingerlock notes trash restore \(second)`"))
        let byTitle = try await runner.run(["notes", "trash", "restore", "second"], environment: touch)
        #expect(byTitle.status == 0, "\(byTitle.stderr)")
        #expect(byTitle.stdout == "Restored \(second): Second\n")

        // Errors: an id not in the trash, none given, an action that takes none.
        let unknown = try await runner.run(["notes", "trash", "restore", first], environment: touch)
        #expect(unknown.status == 5)
        #expect(unknown.stderr.contains("in the trash"))
        #expect(try await runner.run(["notes", "trash", "restore"], environment: touch).status == 64)
        #expect(try await runner.run(["notes", "trash", "empty", first], environment: touch).status == 64)
        #expect(try await runner.run(["notes", "trash", "list", "--older-than", "1d"], environment: touch).status == 64)
        #expect(try await runner.run(["notes", "trash", "empty", "--older-than", "soon"], environment: touch).status == 64)
        // An unknown id among several removes none.
        let partly = try await runner.run(["notes", "rm", third, "00000000", "--yes"], environment: touch)
        #expect(partly.status == 5)
        #expect(try await runner.run(["notes", "show", third], environment: touch).status == 0)
        #expect(try await runner.run(["notes", "rm"], environment: touch).status == 64)
    }

    @Test func emptyAndPurge() async throws {
        try await setUp()
        let first = try await add("one", title: "First")
        let second = try await add("two", title: "Second")
        #expect(try await runner.run(["notes", "rm", first, "--yes"], environment: touch).status == 0)
        // Without a terminal and without --yes, emptying refuses and deletes nothing.
        #expect(try await runner.run(["notes", "trash", "empty"], environment: touch).status == 64)
        let recent = try #require(try await json(["notes", "trash", "empty", "--older-than", "7d", "--yes"]) as? [String: Int])
        #expect(recent == ["deleted": 0])
        let all = try #require(try await json(["notes", "trash", "empty", "--yes"]) as? [String: Int])
        #expect(all == ["deleted": 1])
        #expect((try await json(["notes", "trash"]) as? [Any])?.isEmpty == true)
        let nothing = try await runner.run(["notes", "trash", "empty", "--yes"], environment: touch)
        #expect(nothing.status == 0 && nothing.stdout.contains("Nothing to delete"))

        let purged = try await runner.run(["notes", "rm", second, "--purge", "--yes"], environment: touch)
        #expect(purged.stdout == "Deleted \(second) for good: Second\n")
        #expect((try await json(["notes", "trash"]) as? [Any])?.isEmpty == true)
        #expect(try await runner.run(["notes", "show", second], environment: touch).status == 5)
    }

    @Test func historyListsShowsAndRestores() async throws {
        try await setUp()
        let id = try await add("v1", title: "One")
        for (title, body) in [("Two", "v2"), ("Three", "v3")] {
            let edit = try await runner.run(["notes", "edit", id, "--title", title], environment: touch, stdin: body)
            #expect(edit.status == 0, "\(edit.stderr)")
        }
        let history = try #require(try await json(["notes", "history", id]) as? [String: Any])
        #expect(history["current"] as? Int == 3)
        let revisions = try #require(history["revisions"] as? [[String: Any]])
        #expect(revisions.map { $0["number"] as? Int } == [2, 1])
        #expect(revisions.map { $0["title"] as? String } == ["Two", "One"])
        #expect(revisions.allSatisfy { Set($0.keys) == ["number", "title", "tags", "modified", "size"] })
        let text = try await runner.run(["notes", "history", id], environment: touch)
        #expect(text.stdout.hasPrefix("\(id)  current revision 3\n2 "))

        let shown = try await runner.run(["notes", "history", id, "--show", "1"], environment: touch)
        #expect(shown.status == 0 && shown.stdout.contains("v1") && shown.stdout.hasPrefix("One\n"))
        // The same words and flags as `notes show`: "modified", and one line of an old revision.
        #expect(shown.stdout.contains(" · modified 20"), "\(shown.stdout)")
        let oldLine = try await runner.run(["notes", "history", id, "--show", "2", "--line", "1"], environment: touch)
        #expect(oldLine.status == 0 && oldLine.stdout == "v2\n", "\(oldLine.stdout) \(oldLine.stderr)")
        #expect(try await runner.run(["notes", "history", id, "--line", "1"], environment: touch).status == 64)
        #expect(try await runner.run(["notes", "history", id, "--show", "2", "--clip", "--json"], environment: touch).status == 64)
        let restored = try await runner.run(["notes", "history", id, "--restore", "1"], environment: touch)
        #expect(restored.stdout == "Restored revision 1 of \(id): One\n")
        #expect(try await runner.run(["notes", "show", id, "--body"], environment: touch).stdout == "v1")
        #expect(try await runner.run(["notes", "history", id, "--show", "3"], environment: touch).stdout.contains("v3"))

        // Errors: a revision not kept, revision 0, both flags.
        let pruned = try await runner.run(["notes", "history", id, "--show", "9"], environment: touch)
        #expect(pruned.status == 5)
        #expect(pruned.stderr.contains("no revision 9"))
        #expect(try await runner.run(["notes", "history", id, "--restore", "0"], environment: touch).status == 64)
        #expect(try await runner.run(["notes", "history", id, "--show", "1", "--restore", "1"], environment: touch).status == 64)
        // The limit is a sealed setting.
        let limit = try await runner.run(["config", "set", "history-limit", "1", "--passcode-stdin"], stdin: "\(InProcessCLI.passcode)\n")
        #expect(limit.status == 0, "\(limit.stderr)")
        #expect(try await runner.run(["config", "set", "history-limit", "101", "--passcode-stdin"], stdin: "\(InProcessCLI.passcode)\n").status != 0)
        #expect(try await runner.run(["notes", "edit", id, "--title", "Five"], environment: touch).status == 0)
        let pruning = try #require(try await json(["notes", "history", id]) as? [String: Any])
        #expect((pruning["revisions"] as? [[String: Any]])?.map { $0["number"] as? Int } == [4])
    }

    @Test func historyColumnsAreAligned() async throws {
        try await setUp()
        let id = try await add("x", title: "Sizes")
        for body in [String(repeating: "long ", count: 400), "y"] {
            #expect(try await runner.run(["notes", "edit", id], environment: touch, stdin: body).status == 0)
        }
        let lines = try await runner.run(["notes", "history", id], environment: touch).stdout.split(separator: "\n").dropFirst()
        #expect(lines.count == 2)
        let columns = Set(lines.compactMap { line in line.range(of: "Sizes").map { line.distance(from: line.startIndex, to: $0.lowerBound) } })
        #expect(columns.count == 1, "\(lines)")
    }

    @Test func aTamperedRevisionIsCaught() async throws {
        try await setUp()
        let id = try await add("v1", title: "One")
        #expect(try await runner.run(["notes", "edit", id, "--title", "Two"], environment: touch).status == 0)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [
            "-c", "import sqlite3, sys\ndb = sqlite3.connect(sys.argv[1])\ndb.execute('DELETE FROM note_revisions')\ndb.commit()",
            runner.dataDirectory + "/vault.sqlite",
        ]
        try process.run()
        try await process.waitForExit()
        #expect(process.terminationStatus == 0)
        let result = try await runner.run(["notes", "history", id], environment: touch)
        #expect(result.status == 6, "\(result.stderr)")
        #expect(try await runner.run(["backup", runner.dataDirectory + "-b.fbak"], environment: touch).status == 6)
    }
}
