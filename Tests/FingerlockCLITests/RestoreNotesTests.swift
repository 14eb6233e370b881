import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

/// What `restore` says about notes before it asks, and `restore --note`, which takes one note out
/// of a backup and changes nothing else.
@Suite(.timed, .timeLimit(.minutes(3))) struct RestoreNotesTests {
    let runner = InProcessCLI(extraEnvironment: ["FINGERLOCK_READER": "simulated"])
    let touch = ["FINGERLOCK_SIMULATED_TOUCHES": "right-thumb"]
    let passcode = "\(InProcessCLI.passcode)\n"

    func add(_ body: String, title: String) async throws -> String {
        let result = try await runner.run(["notes", "add", "--title", title], environment: touch, stdin: body)
        #expect(result.status == 0, "\(result.stderr)")
        return String(result.stdout.split(separator: " ")[1].dropLast())
    }

    @Test func thePlanNamesNotesThatComeBackGoAwayAndChange() async throws {
        try await runner.setPasscode()
        #expect(try await runner.enroll("right-thumb", touches: "right-thumb*5").status == 0)
        let gone = try await add("one", title: "Gone later")
        let changed = try await add("two", title: "Changed later")
        for index in 0..<7 { _ = try await add("x", title: "Old \(index)") }
        // The trash and the earlier revisions are named too.
        let trashedThen = try await add("t", title: "Trashed then")
        #expect(try await runner.run(["notes", "rm", trashedThen, "--yes"], environment: touch).status == 0)
        let edited = try await add("first", title: "Edited before")
        #expect(try await runner.run(["notes", "edit", edited], environment: touch, stdin: "second").status == 0)
        let backup = runner.dataDirectory + "-plan.fbak"
        #expect(try await runner.run(["backup", backup], environment: touch).status == 0)
        #expect(try await runner.run(["notes", "rm", gone, "--purge", "--yes"], environment: touch).status == 0)
        #expect(try await runner.run(["notes", "edit", changed, "--title", "Now \u{1B}[2J"], environment: touch).status == 0)
        _ = try await add("new", title: "Added later")
        #expect(try await runner.run(["notes", "trash", "empty", "--yes"], environment: touch).status == 0)
        #expect(try await runner.run(["notes", "history", edited, "--restore", "1"], environment: touch).status == 0)
        let trashedNow = try await add("t", title: "Trashed now")
        #expect(try await runner.run(["notes", "rm", trashedNow, "--yes"], environment: touch).status == 0)

        // Without --yes and no terminal it stops after the plan: nothing is restored.
        let plan = try await runner.run(["restore", backup, "--passcode-stdin"], stdin: passcode)
        #expect(plan.status == 64)
        #expect(plan.stdout.contains("  Notes that come back: \"Gone later\".\n"))
        #expect(plan.stdout.contains("  Notes that go away: \"Added later\".\n"))
        #expect(plan.stdout.contains("  Notes that go back to the backup's version: \"Edited before\" and \"Changed later\".\n"), "\(plan.stdout)")
        #expect(plan.stdout.contains("  Notes in the trash that come back to it: \"Trashed then\".\n"), "\(plan.stdout)")
        #expect(plan.stdout.contains("  Notes in the trash now that go away for good: \"Trashed now\".\n"), "\(plan.stdout)")
        // `changed` got a revision after the backup (its title edit); `edited` got one more (the restore of revision 1).
        #expect(
            plan.stdout.contains("  Earlier revisions that go away for good: 2 (1 of \"Changed later\" and 1 of \"Edited before\").\n"),
            "\(plan.stdout)")

        // Many notes are capped with "and N more".
        for index in 0..<7 {
            let id = try await idOf("Old \(index)")
            #expect(try await runner.run(["notes", "edit", id, "--title", "Renamed \(index)"], environment: touch).status == 0)
        }
        let capped = try await runner.run(["restore", backup, "--passcode-stdin"], stdin: passcode)
        #expect(capped.stdout.contains(" and 4 more.\n"), "\(capped.stdout)")
    }

    func idOf(_ title: String) async throws -> String {
        let result = try await runner.run(["notes", "list", "--json"], environment: touch)
        let notes = try #require(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        let id = try #require(notes.first { $0["title"] as? String == title }?["id"] as? String)
        return String(id.prefix(8))
    }

    @Test func oneNoteComesOutOfABackupAndNothingElseChanges() async throws {
        try await runner.setPasscode()
        #expect(try await runner.enroll("right-thumb", touches: "right-thumb*5").status == 0)
        let lost = try await add("lost body", title: "Lost")
        let edited = try await add("first text", title: "Edited")
        let backup = runner.dataDirectory + "-one.fbak"
        #expect(try await runner.run(["backup", backup], environment: touch).status == 0)
        #expect(try await runner.run(["notes", "rm", lost, "--purge", "--yes"], environment: touch).status == 0)
        #expect(try await runner.run(["notes", "edit", edited], environment: touch, stdin: "second text").status == 0)
        let kept = try await add("stays", title: "Kept")

        let took = try await runner.run(["restore", "--note", lost, backup], environment: touch)
        #expect(took.status == 0, "\(took.stderr)")
        #expect(took.stdout == "Took \(lost) from \(backup): Lost\n")
        #expect(try await runner.run(["notes", "show", lost, "--body"], environment: touch).stdout == "lost body")
        #expect(try await runner.run(["notes", "show", kept, "--body"], environment: touch).stdout == "stays")

        // A note the vault has: the backup's text becomes the newest revision, today's stays in history.
        let back = try await runner.run(["restore", "--note", edited, backup], environment: touch)
        #expect(back.status == 0, "\(back.stderr)")
        #expect(try await runner.run(["notes", "show", edited, "--body"], environment: touch).stdout == "first text")
        #expect(try await runner.run(["notes", "history", edited, "--show", "2"], environment: touch).stdout.contains("second text"))
        let same = try await runner.run(["restore", "--note", edited, backup], environment: touch)
        #expect(same.stdout.hasPrefix("No changes"))

        // Errors: an id the backup lacks, no such backup, a name no note of the backup has (titles
        // count too, as everywhere a note is named), an empty name.
        #expect(try await runner.run(["restore", "--note", kept, backup], environment: touch).status == 5)
        #expect(try await runner.run(["restore", "--note", lost, runner.dataDirectory + "-none"], environment: touch).status == 5)
        #expect(try await runner.run(["restore", "--note", "zz", backup], environment: touch).status == 5)
        #expect(try await runner.run(["restore", "--note", "", backup], environment: touch).status == 64)
    }
}
