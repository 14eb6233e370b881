import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The editor template's `Tags:` line, a piped heading as the title, and the editor found without
/// $VISUAL/$EDITOR, each through the built binary on a pseudo-terminal.
@Suite(.timed, .timeLimit(.minutes(3))) struct EditorTemplateTests {
    let runner: BinaryRunner
    let runtimeDirectory: String
    let touch = ["FINGERLOCK_SIMULATED_TOUCHES": "right-thumb"]

    init() async throws {
        runtimeDirectory = "/dev/shm/fl-template-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: runtimeDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        runner = BinaryRunner(extraEnvironment: ["FINGERLOCK_READER": "simulated", "XDG_RUNTIME_DIR": runtimeDirectory])
        try await runner.setPasscode()
        #expect(try await runner.enroll("right-thumb", touches: "right-thumb*5").status == 0)
    }

    /// An editor script that copies the template it was given to `seen` and then runs `edit` on it.
    func editor(_ name: String, edit: String, directory: String? = nil) throws -> (script: String, seen: String) {
        let folder = directory ?? runner.home
        let script = folder + "/" + name
        let seen = runner.home + "/\(name)-seen.md"
        try "#!/bin/sh\nPATH=/usr/bin:/bin\ncp \"$1\" '\(seen)'\n\(edit)\n".write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o700)
        return (script, seen)
    }

    func atTerminal(_ arguments: [String], environment: [String: String]) async throws -> (status: Int32, output: String) {
        let session = try PseudoTerminalSession(
            arguments: arguments, environment: runner.environment.merging(touch.merging(environment) { $1 }) { $1 })
        let status = await session.waitForExit()
        return (status, session.output)
    }

    func note(_ id: String) async throws -> [String: Any] {
        let shown = try await runner.run(["notes", "show", id, "--json"], environment: touch)
        #expect(shown.status == 0, "\(shown.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])
    }

    func onlyNoteID() async throws -> String {
        let listed = try await runner.run(["notes", "list", "--json"], environment: touch)
        let notes = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        return try #require(notes.first?["id"] as? String)
    }

    @Test func theTagsLineIsOfferedAndReadBack() async throws {
        let add = try editor("add.sh", edit: "printf 'Tags: x, #y, , X\\n# Groceries\\n\\nmilk\\n' > \"$1\"")
        let added = try await atTerminal(["notes", "add", "--tag", "pre"], environment: ["EDITOR": add.script])
        #expect(added.status == 0, "\(added.output)")
        #expect(try String(contentsOfFile: add.seen, encoding: .utf8) == "Tags: pre\n# \n\n")
        let id = try await onlyNoteID()
        var shown = try await note(id)
        #expect(shown["tags"] as? [String] == ["x", "y"])
        #expect(shown["title"] as? String == "Groceries")
        #expect(shown["body"] as? String == "milk\n")

        let edit = try editor("edit.sh", edit: "sed -i '1s/.*/Tags: z/; s/milk/bread/' \"$1\"")
        let edited = try await atTerminal(["notes", "edit", id], environment: ["EDITOR": edit.script])
        #expect(edited.status == 0, "\(edited.output)")
        #expect(try String(contentsOfFile: edit.seen, encoding: .utf8) == "Tags: x, y\n# Groceries\n\nmilk\n")
        shown = try await note(id)
        #expect(shown["tags"] as? [String] == ["z"])
        #expect(shown["body"] as? String == "bread\n")

        // A file without the line (an editor that rewrote it all) leaves the tags alone.
        let rewrite = try editor("rewrite.sh", edit: "printf '# Groceries\\n\\ncheese\\n' > \"$1\"")
        #expect(try await atTerminal(["notes", "edit", id], environment: ["EDITOR": rewrite.script]).status == 0)
        shown = try await note(id)
        #expect(shown["tags"] as? [String] == ["z"])
        #expect(shown["body"] as? String == "cheese\n")
    }

    @Test func aPipedHeadingBecomesTheTitleOnce() async throws {
        let added = try await runner.run(["notes", "add"], environment: touch, stdin: "\n# Groceries\n\nmilk\n## later\n")
        #expect(added.status == 0, "\(added.stderr)")
        let id = try await onlyNoteID()
        let shown = try await note(id)
        #expect(shown["title"] as? String == "Groceries")
        #expect(shown["body"] as? String == "milk\n## later\n")

        // A first line that is no heading names the note and stays; so does a heading with --title.
        let plain = try await runner.run(["notes", "add"], environment: touch, stdin: "plain line\nmore\n")
        #expect(plain.status == 0)
        let titled = try await runner.run(["notes", "add", "--title", "mine"], environment: touch, stdin: "# Heading\nbody\n")
        #expect(titled.status == 0)
        let listed = try await runner.run(["notes", "list", "--json"], environment: touch)
        let notes = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        for summary in notes {
            let id = try #require(summary["id"] as? String)
            let full = try await note(id)
            switch full["title"] as? String {
            case "plain line": #expect(full["body"] as? String == "plain line\nmore\n")
            case "mine": #expect(full["body"] as? String == "# Heading\nbody\n")
            default: break
            }
        }
        #expect(notes.count == 3)
    }

    @Test func withoutVisualOrEditorTheFallbackIsFoundOnPath() async throws {
        let bin = runner.home + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        let vi = try editor("vi", edit: "printf '# By vi\\n\\nbody\\n' > \"$1\"", directory: bin)
        let path = bin + ":/usr/bin:/bin"
        // Only our `vi` on PATH: it is used. Then our `editor` too, ahead of the system's: `editor` comes first.
        let byVi = try await atTerminal(["notes", "add"], environment: ["PATH": bin])
        #expect(byVi.status == 0, "\(byVi.output)")
        #expect(FileManager.default.fileExists(atPath: vi.seen))
        let editorFirst = try editor("editor", edit: "printf '# By editor\\n\\nbody\\n' > \"$1\"", directory: bin)
        let byEditor = try await atTerminal(["notes", "add"], environment: ["PATH": path])
        #expect(byEditor.status == 0, "\(byEditor.output)")
        #expect(FileManager.default.fileExists(atPath: editorFirst.seen))
        let titles = try await runner.run(["notes", "list"], environment: touch).stdout
        #expect(titles.contains("By vi") && titles.contains("By editor"))

        let none = try await atTerminal(["notes", "add"], environment: ["PATH": runner.home + "/nothing-here"])
        #expect(none.status == 64)
        #expect(none.output.contains("Set $VISUAL or $EDITOR to edit notes (none of editor, vi or nano is on PATH), or pipe the body on stdin."))
    }
}
