import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Two fingerlock processes changing one note: each change is applied to the note as stored when it
/// is saved, so none is lost; an editor's text that can no longer apply becomes a note of its own.
@Suite(.timed, .timeLimit(.minutes(3))) struct ConcurrentEditTests {
    let runner: BinaryRunner
    let runtimeDirectory: String
    let touch = ["FINGERLOCK_SIMULATED_TOUCHES": "right-thumb"]

    init() async throws {
        runtimeDirectory = "/dev/shm/fl-runtime-\(UUID().uuidString)"
        try FileManager.default.createDirectory(
            atPath: runtimeDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        runner = BinaryRunner(extraEnvironment: ["FINGERLOCK_READER": "simulated", "XDG_RUNTIME_DIR": runtimeDirectory, "TERM": "dumb"])
        try await runner.setPasscode()
        #expect(try await runner.enroll("right-thumb", touches: "right-thumb*5").status == 0)
        #expect(try await runner.run(["notes", "add", "--title", "groceries"], environment: touch, stdin: "milk\n").status == 0)
    }

    func noteIDs() async throws -> [String] {
        let listed = try await runner.run(["notes", "list", "--json"], environment: touch)
        return listed.stdout.split(separator: "\"").filter { $0.count == 36 && $0.contains("-") }.map(String.init)
    }

    func show(_ id: String) async throws -> String {
        try await runner.run(["notes", "show", id, "--json"], environment: touch).stdout
    }

    /// Runs `notes edit id` at a terminal with an editor that writes `content` and then waits
    /// while `meanwhile` runs (another fingerlock's change); returns the edit once it has exited.
    func editAtTerminal(_ id: String, writing content: String, meanwhile: () async throws -> Void) async throws -> (
        status: Int32, output: String
    ) {
        let script = runtimeDirectory + "-editor.sh"
        let go = runtimeDirectory + "-go"
        try """
        #!/bin/sh
        printf '\(content)' > "$1"
        echo editing
        while [ ! -e '\(go)' ]; do sleep 0.05; done
        """.write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o700)
        let edit = try PseudoTerminalSession(
            arguments: ["notes", "edit", id], environment: runner.environment.merging(touch.merging(["EDITOR": script]) { $1 }) { $1 })
        await edit.expect("editing")
        try await meanwhile()
        #expect(FileManager.default.createFile(atPath: go, contents: Data()))
        return (await edit.waitForExit(), edit.output)
    }

    @Test func parallelTagEditsAreAllKept() async throws {
        let id = try #require(try await noteIDs().first)
        try await withThrowingTaskGroup(of: Int32.self) { group in
            for tag in 1...8 {
                group.addTask { try await runner.run(["notes", "edit", id, "--add-tag", "p\(tag)"], environment: touch).status }
            }
            for try await status in group { #expect(status == 0) }
        }
        let shown = try await show(id)
        for tag in 1...8 { #expect(shown.contains("\"p\(tag)\""), "p\(tag) lost: \(shown)") }
        #expect(shown.contains("milk"))
    }

    @Test func aTagAddedWhileTheEditorIsOpenIsKeptWithTheEdit() async throws {
        let id = try #require(try await noteIDs().first)
        let edit = try await editAtTerminal(id, writing: "# groceries\\n\\nmilk and eggs\\n") { () async throws in
            #expect(try await runner.run(["notes", "edit", id, "--add-tag", "kept"], environment: touch).status == 0)
        }
        #expect(edit.status == 0)
        #expect(edit.output.contains("Saved"))
        let shown = try await show(id)
        #expect(shown.contains("milk and eggs") && shown.contains("\"kept\""), "\(shown)")
        #expect(try await noteIDs().count == 1)
    }

    @Test func aBodyChangedWhileTheEditorIsOpenKeepsBothVersions() async throws {
        let id = try #require(try await noteIDs().first)
        let edit = try await editAtTerminal(id, writing: "# groceries\\n\\nmine: bread\\n") { () async throws in
            #expect(try await runner.run(["notes", "edit", id], environment: touch, stdin: "theirs: cheese\n").status == 0)
        }
        #expect(edit.status == 0)
        #expect(edit.output.contains("changed while you were editing it"), "\(edit.output)")
        let ids = try await noteIDs()
        #expect(ids.count == 2)
        #expect(try await show(id).contains("theirs: cheese"))
        let copy = try #require(ids.first { $0 != id })
        #expect(try await show(copy).contains("mine: bread"))
    }

    @Test func aNoteDeletedWhileTheEditorIsOpenKeepsTheEdit() async throws {
        let id = try #require(try await noteIDs().first)
        let edit = try await editAtTerminal(id, writing: "# groceries\\n\\nstill wanted\\n") { () async throws in
            #expect(try await runner.run(["notes", "rm", id, "--yes"], environment: touch).status == 0)
        }
        #expect(edit.status == 0)
        #expect(edit.output.contains("was deleted while you were editing it"), "\(edit.output)")
        let ids = try await noteIDs()
        #expect(ids.count == 1 && ids.first != id)
        #expect(try await show(try #require(ids.first)).contains("still wanted"))
    }

    @Test func anEditorThatEmptiesTheNoteSavesNothing() async throws {
        let id = try #require(try await noteIDs().first)
        let script = runtimeDirectory + "-emptying-editor.sh"
        try "#!/bin/sh\n: > \"$1\"\necho emptied\n".write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o700)
        let edit = try PseudoTerminalSession(
            arguments: ["notes", "edit", id], environment: runner.environment.merging(touch.merging(["EDITOR": script]) { $1 }) { $1 })
        #expect(await edit.waitForExit() == 2)
        #expect(edit.output.contains("The note is empty; nothing was saved."))
        #expect(try await show(id).contains("milk"))
    }
}
