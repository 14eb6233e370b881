import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

/// Tags, in process: AND on repeated `--tag`, normalised names, `notes tags`, and
/// `notes edit --add-tag/--remove-tag` that change one tag and nothing else.
@Suite(.timed, .timeLimit(.minutes(3))) struct NoteTagsTests {
    let runner = InProcessCLI(extraEnvironment: ["FINGERLOCK_READER": "simulated"])
    let touch = ["FINGERLOCK_SIMULATED_TOUCHES": "right-thumb"]

    init() async throws {
        try await runner.setPasscode()
        #expect(try await runner.enroll("right-thumb", touches: "right-thumb*5").status == 0)
    }

    func add(_ body: String, title: String, tags: [String]) async throws -> String {
        let result = try await runner.run(["notes", "add", "--title", title] + tags.flatMap { ["--tag", $0] }, environment: touch, stdin: body)
        #expect(result.status == 0, "\(result.stderr)")
        return String(result.stdout.split(separator: " ")[1].dropLast())
    }

    func json(_ arguments: [String]) async throws -> Any {
        let result = try await runner.run(arguments + ["--json"], environment: touch)
        #expect(result.status == 0, "\(result.stderr)")
        return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
    }

    func titles(_ arguments: [String]) async throws -> Set<String> {
        let rows = try #require(try await json(arguments) as? [[String: Any]])
        return Set(rows.compactMap { $0["title"] as? String })
    }

    func tags(of id: String) async throws -> [String] {
        let rows = try #require(try await json(["notes", "list"]) as? [[String: Any]])
        let row = try #require(rows.first { ($0["id"] as? String)?.hasPrefix(id) == true })
        return try #require(row["tags"] as? [String])
    }

    @Test func repeatedTagsMeanAllOfThemOnListAndSearch() async throws {
        _ = try await add("alpha", title: "both", tags: ["work", "urgent"])
        _ = try await add("alpha", title: "work only", tags: ["work"])
        _ = try await add("alpha", title: "urgent only", tags: ["Urgent"])
        #expect(try await titles(["notes", "list", "--tag", "work"]) == ["both", "work only"])
        #expect(try await titles(["notes", "list", "--tag", "work", "--tag", "urgent"]) == ["both"])
        #expect(try await titles(["notes", "search", "alpha", "--tag", "URGENT"]) == ["both", "urgent only"])
        #expect(try await titles(["notes", "search", "alpha", "--tag", "urgent", "--tag", "work"]) == ["both"])
        let none = try await runner.run(["notes", "list", "--tag", "work", "--tag", "nope"], environment: touch)
        #expect(none.status == 0)
        #expect(none.stdout == "No note is tagged #work and #nope.\n")
    }

    @Test func tagsAreTrimmedAndLoseOneLeadingHash() async throws {
        let id = try await add("x", title: "trimmed", tags: ["  #home ", "HOME", "#car"])
        #expect(try await tags(of: id) == ["home", "car"])
        #expect(try await titles(["notes", "list", "--tag", "#home"]) == ["trimmed"])
        #expect(try await titles(["notes", "list", "--tag", " car"]) == ["trimmed"])
    }

    @Test(arguments: [
        ["notes", "add", "--title", "t", "--tag", "  "],
        ["notes", "list", "--tag", "#"],
        ["notes", "search", "x", "--tag", ""],
        ["notes", "edit", "abc", "--tag", " # "],
        ["notes", "edit", "abc", "--add-tag", ""],
        ["notes", "edit", "abc", "--remove-tag", "#"],
        ["notes", "edit", "abc", "--tag", "a", "--add-tag", "b"],
        ["notes", "edit", "abc", "--add-tag", "a", "--remove-tag", "#A"],
    ])
    func emptyOrContradictoryTagsAreOneLineUsageErrors(arguments: [String]) async throws {
        // No touch is scripted: the command line is refused before any unlock.
        let result = try await runner.run(arguments, stdin: "body\n")
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test func tagsCommandCountsIgnoringCaseMostUsedFirst() async throws {
        let empty = try await runner.run(["notes", "tags"], environment: touch)
        #expect(empty.status == 0)
        #expect(empty.stdout.hasPrefix("No tags yet"))
        _ = try await add("1", title: "a", tags: ["work", "home"])
        _ = try await add("2", title: "b", tags: ["Work"])
        _ = try await add("3", title: "c", tags: ["work", "zoo"])
        let counted = try #require(try await json(["notes", "tags"]) as? [[String: Any]])
        #expect(counted.compactMap { $0["tag"] as? String } == ["work", "home", "zoo"])
        #expect(counted.compactMap { $0["count"] as? Int } == [3, 1, 1])
        let human = try await runner.run(["notes", "tags"], environment: touch)
        #expect(human.stdout == "3  #work\n1  #home\n1  #zoo\n")
    }

    @Test func addAndRemoveTagChangeOneTagAndNothingElse() async throws {
        let id = try await add("the body\nstays\n", title: "kept title", tags: ["a", "b"])
        let edited = try await runner.run(["notes", "edit", id, "--add-tag", "#c", "--add-tag", "d", "--remove-tag", "A"], environment: touch)
        #expect(edited.status == 0, "\(edited.stderr)")
        #expect(try await tags(of: id) == ["b", "c", "d"])
        let show = try await runner.run(["notes", "show", id], environment: touch)
        #expect(show.stdout.hasPrefix("kept title\n"))
        #expect(show.stdout.hasSuffix("\nthe body\nstays\n"))

        // Already there (in another case): nothing to save.
        let again = try await runner.run(["notes", "edit", id, "--add-tag", "C"], environment: touch)
        #expect(again.status == 0)
        #expect(again.stdout == "No changes.\n")

        // A tag the note does not have: exit 5, and the additions given with it are not saved either.
        let missing = try await runner.run(["notes", "edit", id, "--remove-tag", "nope", "--add-tag", "e"], environment: touch)
        #expect(missing.status == 5)
        #expect(missing.stderr == "fingerlock: The note has no tag \"nope\" (its tags are #b #c #d); nothing was changed.\n")
        #expect(try await tags(of: id) == ["b", "c", "d"])
    }

    @Test func addTagNeverReadsAnEditorOrStdin() async throws {
        let id = try await add("original body\n", title: "t", tags: [])
        // An empty pipe holds no body, and the editor (one that fails) is never started: the tag alone
        // changes. (What each kind of stdin means to a body, /dev/null included: ScriptedEditTests.)
        let edited = try await runner.run(
            ["notes", "edit", id, "--add-tag", "x"], environment: touch.merging(["EDITOR": "/bin/false"]) { $1 }, stdin: "")
        #expect(edited.status == 0, "\(edited.stderr)")
        let show = try await runner.run(["notes", "show", id], environment: touch)
        #expect(show.stdout.hasSuffix("\noriginal body\n"))
        #expect(show.stdout.contains("#x"))
    }
}
