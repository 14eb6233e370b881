import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

/// Output for scripts (in process): `notes show --body` and `--json`, `config get
/// --json`, `verify --json`, lower-case ids in every output, and `notes search` exiting 1 on no hit.
@Suite(.timed, .timeLimit(.minutes(3))) struct ScriptingOutputTests {
    let runner = InProcessCLI(extraEnvironment: ["FINGERLOCK_READER": "simulated"])
    let touch = ["FINGERLOCK_SIMULATED_TOUCHES": "right-thumb"]

    init() async throws {
        try await runner.setPasscode()
        #expect(try await runner.enroll("right-thumb", touches: "right-thumb*5").status == 0)
    }

    func add(_ body: String, title: String, tags: [String] = []) async throws -> String {
        let result = try await runner.run(["notes", "add", "--title", title] + tags.flatMap { ["--tag", $0] }, environment: touch, stdin: body)
        #expect(result.status == 0, "\(result.stderr)")
        return String(result.stdout.split(separator: " ")[1].dropLast())
    }

    func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func showBodyIsTheBodyExactlyAsStored() async throws {
        // No final newline, a carriage return and a tab: all kept, nothing added.
        let body = "line one\r\n\tindented\nno newline at the end"
        let id = try await add(body, title: "exact")
        let shown = try await runner.run(["notes", "show", id, "--body"], environment: touch)
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdout == body)
        let empty = try await add("", title: "title only")
        #expect(try await runner.run(["notes", "show", empty, "--body"], environment: touch).stdout == "")
    }

    @Test func showJSONHasTheListingFieldsAndTheBody() async throws {
        let id = try await add("the body\n", title: "T", tags: ["a", "b"])
        let shown = try await runner.run(["notes", "show", id, "--json"], environment: touch)
        #expect(shown.status == 0, "\(shown.stderr)")
        let note = try object(shown.stdout)
        #expect(Set(note.keys) == ["id", "title", "tags", "created", "modified", "body"])
        #expect((note["id"] as? String)?.hasPrefix(id) == true)
        #expect(note["id"] as? String == (note["id"] as? String)?.lowercased())
        #expect(note["title"] as? String == "T")
        #expect(note["tags"] as? [String] == ["a", "b"])
        #expect(note["body"] as? String == "the body\n")
        #expect((note["modified"] as? String)?.hasSuffix("Z") == true)
    }

    @Test func showJSONErrorsAreJSONObjectsAndBodyWithJSONIsRefused() async throws {
        let missing = try await runner.run(["notes", "show", "00000000", "--json"], environment: touch)
        #expect(missing.status == 5)
        #expect(try object(missing.stderr)["error"] as? String == "not_found")
        let both = try await runner.run(["notes", "show", "00000000", "--json", "--body"], environment: touch)
        #expect(both.status == 64)
        #expect(both.stderr.contains("--body and --json"))
    }

    @Test func searchWithoutAHitExitsOneLikeGrep() async throws {
        _ = try await add("present", title: "p")
        let hit = try await runner.run(["notes", "search", "present"], environment: touch)
        #expect(hit.status == 0)
        let miss = try await runner.run(["notes", "search", "absent"], environment: touch)
        #expect(miss.status == 1)
        #expect(miss.stdout.isEmpty)
        #expect(miss.stderr == "No note contains \"absent\".\n")
        let json = try await runner.run(["notes", "search", "absent", "--json"], environment: touch)
        #expect(json.status == 1)
        #expect(json.stdout == "[\n\n]\n" || json.stdout == "[]\n")
        #expect(json.stderr.isEmpty)
        // An unlock that fails is still its own status, not "no hit".
        #expect(try await runner.run(["notes", "search", "absent"], environment: ["FINGERLOCK_SIMULATED_TOUCHES": "absent"]).status == 8)
    }

    @Test func configGetJSONGivesNumbersThatConfigSetTakesBack() async throws {
        #expect(try await runner.run(["config", "set", "cache-expiry", "90m", "--passcode-stdin"], stdin: "\(InProcessCLI.passcode)\n").status == 0)
        let all = try await runner.run(["config", "get", "--json"])
        #expect(all.status == 0, "\(all.stderr)")
        let settings = try object(all.stdout)
        #expect(
            settings as? [String: Int] == [
                "cacheExpirySeconds": 5400, "reuseWindowSeconds": 0, "maxTries": 3, "scanTimeoutSeconds": 30, "clipClearSeconds": 45,
                "historyLimit": 10, "trashKeepSeconds": 2_592_000,
            ])
        let one = try await runner.run(["config", "get", "max-tries", "--json"])
        #expect(try object(one.stdout) as? [String: Int] == ["maxTries": 3])
        // What a script read goes back as it was.
        let back = try await runner.run(["config", "set", "trash-keep", "2592000s", "--passcode-stdin"], stdin: "\(InProcessCLI.passcode)\n")
        #expect(back.status == 0, "\(back.stderr)")
        #expect(try await runner.run(["config", "get", "trash-keep"]).stdout == "720h\n")
        let typo = try await runner.run(["config", "get", "max-trie", "--json"])
        #expect(typo.status == 64)
        #expect(try object(typo.stderr)["error"] as? String == "usage")
    }

    @Test func verifyJSONOnAMatchAndTheErrorObjectOtherwise() async throws {
        let match = try await runner.run(["verify", "--json"], environment: touch)
        #expect(match.status == 0, "\(match.stderr)")
        let result = try object(match.stdout)
        #expect(result["matched"] as? Bool == true)
        #expect(result["finger"] as? String == "right-thumb")
        #expect((result["reader"] as? String)?.hasPrefix("simulated:") == true)
        let noMatch = try await runner.run(["verify", "--json"], environment: ["FINGERLOCK_SIMULATED_TOUCHES": "unknown"])
        #expect(noMatch.status == 1)
        #expect(noMatch.stdout.isEmpty)
        #expect(try object(noMatch.stderr)["error"] as? String == "auth_failed")
    }

    @Test func idsAreLowerCaseInTheJSONExport() async throws {
        let id = try await add("exported", title: "e")
        let export = try await runner.run(["export", "--yes-plaintext"], environment: touch)
        #expect(export.status == 0, "\(export.stderr)")
        let notes = try #require(try JSONSerialization.jsonObject(with: Data(export.stdout.utf8)) as? [[String: Any]])
        let exported = try #require(notes.first?["id"] as? String)
        #expect(exported.hasPrefix(id))
        #expect(exported == exported.lowercased())
        #expect(Set(notes.first?.keys.map { $0 } ?? []) == ["id", "title", "body", "tags", "created", "modified"])
    }
}
