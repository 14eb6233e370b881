import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `notes edit` and `notes add` from scripts: only a non-empty body piped or redirected from a file
/// replaces a body; `/dev/null`, an empty pipe or an empty file never wipe a note, and changing the
/// title or tags alone never opens an editor.
@Suite(.timed, .timeLimit(.minutes(3))) struct ScriptedEditTests {
    let runner: BinaryRunner
    let scratch: String
    let touch = ["FINGERLOCK_SIMULATED_TOUCHES": "right-thumb"]
    let body = "the body that must survive\nsecond line\n"

    init() async throws {
        runner = BinaryRunner(extraEnvironment: ["FINGERLOCK_READER": "simulated"])
        scratch = runner.dataDirectory + "-scratch"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        try await runner.setPasscode()
        #expect(try await runner.enroll("right-thumb", touches: "right-thumb*5").status == 0)
    }

    func addNote() async throws -> String {
        let added = try await runner.run(["notes", "add", "--title", "Original", "--tag", "old"], environment: touch, stdin: body)
        #expect(added.status == 0, "\(added.stderr)")
        return String(try #require(added.stdout.split(separator: " ").dropFirst().first).dropLast())
    }

    func note(_ id: String) async throws -> (title: String, body: String) {
        let shown = try await runner.run(["notes", "show", id], environment: touch)
        #expect(shown.status == 0, "\(shown.stderr)")
        let lines = shown.stdout.split(separator: "\n", maxSplits: 3, omittingEmptySubsequences: false)
        return (String(lines[0]), lines.count > 3 ? String(lines[3]) : "")
    }

    func file(_ name: String, _ content: String) throws -> String {
        let path = scratch + "/" + name
        try content.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func aNewTitleWithStdinAtDevNullKeepsTheBody() async throws {
        let id = try await addNote()
        let edit = try await runner.run(["notes", "edit", id, "--title", "Renamed"], environment: touch, stdinFrom: "/dev/null")
        #expect(edit.status == 0, "\(edit.stderr)")
        #expect(edit.stdout == "Saved \(id): Renamed\n")
        let after = try await note(id)
        #expect(after.title == "Renamed")
        #expect(after.body == body)
    }

    @Test func newTagsWithAnEmptyPipeKeepTheBody() async throws {
        let id = try await addNote()
        let edit = try await runner.run(["notes", "edit", id, "--tag", "new"], environment: touch, stdin: "")
        #expect(edit.status == 0, "\(edit.stderr)")
        let after = try await note(id)
        #expect(after.body == body)
        #expect(try await runner.run(["notes", "list", "--tag", "new", "--json"], environment: touch).stdout.contains(id))
    }

    @Test func aNewTitleWithAnEmptyFileKeepsTheBody() async throws {
        let id = try await addNote()
        let edit = try await runner.run(["notes", "edit", id, "--title", "From file"], environment: touch, stdinFrom: try file("empty", ""))
        #expect(edit.status == 0, "\(edit.stderr)")
        #expect(try await note(id).body == body)
    }

    @Test func aBodyPipedOrInAFileReplacesTheBody() async throws {
        let id = try await addNote()
        let piped = try await runner.run(["notes", "edit", id, "--title", "Piped"], environment: touch, stdin: "piped body\n")
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(try await note(id) == ("Piped", "piped body\n"))
        let redirected = try await runner.run(["notes", "edit", id], environment: touch, stdinFrom: try file("body", "body from a file\n"))
        #expect(redirected.status == 0, "\(redirected.stderr)")
        #expect(try await note(id) == ("Piped", "body from a file\n"))
    }

    @Test func withNothingToChangeNothingChanges() async throws {
        let id = try await addNote()
        // No body, no title, no terminal for an editor.
        let devNull = try await runner.run(["notes", "edit", id], environment: touch, stdinFrom: "/dev/null")
        #expect(devNull.status == 64)
        #expect(devNull.stderr.contains("Pipe the new body"))
        let emptyPipe = try await runner.run(["notes", "edit", id], environment: touch, stdin: "")
        #expect(emptyPipe.status == 2)
        #expect(emptyPipe.stderr == "fingerlock: The body on stdin is empty; nothing was changed.\n")
        #expect(try await note(id) == ("Original", body))
    }

    @Test func addingFromAnEmptyStdinAddsNothingAndDevNullIsNeverABody() async throws {
        let empty = try await runner.run(["notes", "add"], environment: touch, stdin: "")
        #expect(empty.status == 2)
        let devNull = try await runner.run(["notes", "add"], environment: touch, stdinFrom: "/dev/null")
        #expect(devNull.status == 2)
        // A device is never read: /dev/zero would never end.
        let zero = try await runner.run(
            ["notes", "add", "--title", "Only a title"], environment: touch, stdinFrom: "/dev/zero", timeout: .seconds(30))
        #expect(zero.status == 0, "\(zero.stderr)")
        let listed = try await runner.run(["notes", "list", "--json"], environment: touch)
        let notes = try #require(JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        #expect(notes.compactMap { $0["title"] as? String } == ["Only a title"])
    }

    @Test func aNewTitleAtATerminalOpensNoEditor() async throws {
        let id = try await addNote()
        let opened = scratch + "/editor-opened"
        let editor = try file("editor.sh", "#!/bin/sh\ntouch '\(opened)'\nprintf '# Clobbered\\n\\nclobbered\\n' > \"$1\"\n")
        chmod(editor, 0o700)
        let runtime = "/dev/shm/fl-runtime-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: runtime) }
        let session = try PseudoTerminalSession(
            arguments: ["notes", "edit", id, "--title", "At the terminal"],
            environment: runner.environment.merging(["EDITOR": editor, "XDG_RUNTIME_DIR": runtime, "TERM": "dumb"].merging(touch) { $1 }) { $1 })
        #expect(await session.waitForExit() == 0)
        #expect(!FileManager.default.fileExists(atPath: opened))
        #expect(try await note(id) == ("At the terminal", body))
    }
}
