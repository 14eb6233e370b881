import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

@testable import FingerlockCLI

/// An id start that several notes share lists them (id, title) on one line, as git does (in process).
@Suite(.timed, .timeLimit(.minutes(3))) struct AmbiguousNoteIDCommandTests {
    @Test func ambiguousStartListsEveryCandidate() async throws {
        let runner = InProcessCLI(extraEnvironment: ["FINGERLOCK_READER": "simulated"])
        let touch = ["FINGERLOCK_SIMULATED_TOUCHES": "right-thumb"]
        try await runner.setPasscode()
        #expect(try await runner.enroll("right-thumb", touches: "right-thumb*5").status == 0)
        // 17 random ids over 16 possible first digits: at least two share one.
        for index in 0..<17 {
            let added = try await runner.run(["notes", "add", "--title", "note \(index)"], environment: touch, stdin: "body \(index)\n")
            try #require(added.status == 0, "\(added.stderr)")
        }
        let listed = try await runner.run(["notes", "list", "--json"], environment: touch)
        let notes = try #require(JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        let byFirstDigit = Dictionary(grouping: notes) { ($0["id"] as? String)?.prefix(1) ?? "" }
        let (digit, shared) = try #require(byFirstDigit.max { $0.value.count < $1.value.count })
        try #require(shared.count >= 2)

        for command in [["notes", "show"], ["notes", "edit"], ["notes", "rm", "--yes"]] {
            // `edit` gets a body to put in, so only the id can stop it.
            let result = try await runner.run(command + [String(digit)], environment: touch, stdin: "replaced\n")
            #expect(result.status == 64, "\(command): \(result.stderr)")
            #expect(result.stdout.isEmpty)
            let line = result.stderr
            #expect(line.hasPrefix("fingerlock: \"\(digit)\" matches "))
            #expect(line.hasSuffix("; type more of the id.\n"))
            #expect(line.split(separator: "\n").count == 1)
            let shown = min(shared.count, NoteIDArgument.candidatesShown)
            let listedCandidates = shared.filter { note in
                let id = note["id"] as? String ?? ""
                return line.contains("\(id.prefix(8)) (\(note["title"] as? String ?? ""))")
            }
            #expect(listedCandidates.count == shown, "\(line)")
        }
        let after = try await runner.run(["notes", "list", "--json"], environment: touch)
        #expect(try #require(JSONSerialization.jsonObject(with: Data(after.stdout.utf8)) as? [Any]).count == 17)

        // One more digit than the shared ones need still opens one note.
        let id = try #require(shared.first?["id"] as? String)
        let show = try await runner.run(["notes", "show", String(id.prefix(12))], environment: touch)
        #expect(show.status == 0, "\(show.stderr)")
        #expect(show.stdout.contains(shared.first?["title"] as? String ?? "?"))
    }
}
