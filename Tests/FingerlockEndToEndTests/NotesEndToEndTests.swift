import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Notes from scripts: bodies on stdin, a scripted $EDITOR, unlocking by touch or passcode.
@Suite(.timed, .timeLimit(.minutes(3))) struct NotesEndToEndTests {
    let runner: BinaryRunner
    let runtimeDirectory: String
    let touch = ["FINGERLOCK_SIMULATED_TOUCHES": "right-thumb"]

    init() async throws {
        runtimeDirectory = "/dev/shm/fl-runtime-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: runtimeDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        runner = BinaryRunner(extraEnvironment: ["FINGERLOCK_READER": "simulated", "XDG_RUNTIME_DIR": runtimeDirectory])
        try await runner.setPasscode()
        #expect(try await runner.enroll("right-thumb", touches: "right-thumb*5").status == 0)
    }

    func add(_ body: String, title: String? = nil, tags: [String] = []) async throws -> String {
        var arguments = ["notes", "add"]
        if let title { arguments += ["--title", title] }
        for tag in tags { arguments += ["--tag", tag] }
        let result = try await runner.run(arguments, environment: touch, stdin: body)
        #expect(result.status == 0, "\(result.stderr)")
        return String(result.stdout.split(separator: " ")[1].dropLast())
    }

    func list(_ extra: [String] = []) async throws -> [[String: Any]] {
        let result = try await runner.run(["notes", "list", "--json"] + extra, environment: touch)
        #expect(result.status == 0, "\(result.stderr)")
        return try #require(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
    }

    @Test func aScriptedEditorAddsAndEditsOnTmpfsAndLeavesNothingBehind() async throws {
        let marker = "EDITOR-MARKER-\(UUID().uuidString)"
        let script = runtimeDirectory + "-editor.sh"
        let log = runtimeDirectory + "-editor.log"
        try """
        #!/bin/sh
        # Records where it was asked to edit and the file's mode, then writes the note.
        stat -c '%a %n' "$1" "$(dirname "$1")" >> '\(log)'
        printf '# From the editor\\n\\n\(marker) body\\n' > "$1"
        """.write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o700)
        // The editor needs a terminal: run in a pseudo-terminal.
        let session = try PseudoTerminalSession(
            arguments: ["notes", "add"], environment: runner.environment.merging(["EDITOR": script].merging(touch) { $1 }) { $1 })
        #expect(await session.waitForExit() == 0)
        #expect(session.output.contains("Added"))
        let logged = try String(contentsOfFile: log, encoding: .utf8)
        #expect(logged.contains("600 \(runtimeDirectory)/fingerlock-edit-"))
        #expect(logged.contains("700 \(runtimeDirectory)/fingerlock-edit-"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: runtimeDirectory).isEmpty)
        let notes = try await list()
        #expect(notes.first?["title"] as? String == "From the editor")
        for directory in [runtimeDirectory, runner.dataDirectory] {
            for name in (try? FileManager.default.subpathsOfDirectory(atPath: directory)) ?? [] {
                let data = FileManager.default.contents(atPath: directory + "/" + name) ?? Data()
                #expect(!String(decoding: data, as: UTF8.self).contains(marker), "plaintext in \(name)")
            }
        }
    }

    @Test func withoutTmpfsEditingIsRefused() async throws {
        let script = runtimeDirectory + "-true.sh"
        try "#!/bin/sh\nexit 0\n".write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o700)
        // Point both candidates away from tmpfs: XDG_RUNTIME_DIR on disk; /dev/shm cannot be
        // hidden from here, so this checks the XDG_RUNTIME_DIR choice is verified, not trusted.
        let session = try PseudoTerminalSession(
            arguments: ["notes", "add"],
            environment: runner.environment.merging(["EDITOR": script, "XDG_RUNTIME_DIR": runner.dataDirectory].merging(touch) { $1 }) { $1 })
        let status = await session.waitForExit()
        // /dev/shm is tmpfs here, so the edit goes there instead — never to the on-disk directory.
        #expect(status == 2 || status == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: runner.dataDirectory).allSatisfy { !$0.hasPrefix("fingerlock-edit") })
    }

    @Test func passcodeStdinCannotShareStdinWithABody() async throws {
        let result = try await runner.run(["notes", "add", "--passcode-stdin"], stdin: "\(BinaryRunner.passcode)\nbody\n")
        #expect(result.status == 64)
        #expect(result.stderr.contains("--passcode-fd"))
    }

    @Test func passcodeFromADescriptorWithTheBodyOnStdin() async throws {
        let file = runtimeDirectory + "-passcode"
        try "\(BinaryRunner.passcode)\n".write(toFile: file, atomically: true, encoding: .utf8)
        let result = try await runner.run(
            ["notes", "add", "--passcode-fd", "3", "--title", "via fd"],
            environment: ["FINGERLOCK_SIMULATED_TOUCHES": "unknown*3"], stdin: "body via stdin\n",
            descriptorsFromFiles: [3: file])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try await list().first?["title"] as? String == "via fd")
    }

    @Test func withoutATerminalNoMatchIsOneAndANeededPasscodeIsEight() async throws {
        _ = try await add("x")
        let noMatch = try await runner.run(["notes", "trash"], environment: ["FINGERLOCK_SIMULATED_TOUCHES": "unknown*3"])
        #expect(noMatch.status == 1)
        let started = ContinuousClock.now
        let noReader = try await runner.run(["notes", "trash"], environment: ["FINGERLOCK_SIMULATED_TOUCHES": "absent"])
        #expect(noReader.status == 8)
        #expect(noReader.stderr.contains("No fingerprint reader") || noReader.stderr.contains("absent"))
        #expect(ContinuousClock.now - started < .seconds(5))
        _ = try await runner.run(["lock"])
        let locked = try await runner.run(["notes", "trash"], environment: touch)
        #expect(locked.status == 8)
    }

    @Test func lockoutAfterFiveFailedTouchesAcrossRuns() async throws {
        _ = try await add("x")
        for _ in 0..<5 { _ = try await runner.run(["verify"], environment: ["FINGERLOCK_SIMULATED_TOUCHES": "unknown"]) }
        let locked = try await runner.run(["verify"], environment: touch)
        #expect(locked.status == 3)
        #expect(locked.stderr.contains("Too many failed touches"))
        let list = try await runner.run(["notes", "list"], environment: touch)
        #expect(list.status == 8)
        let passcode = try await runner.run(["notes", "list", "--passcode-stdin"], environment: touch, stdin: "\(BinaryRunner.passcode)\n")
        #expect(passcode.status == 0)
        #expect(try await runner.run(["verify"], environment: touch).status == 0)
    }

}
