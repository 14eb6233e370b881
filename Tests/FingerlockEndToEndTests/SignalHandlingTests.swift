import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// SIGTERM and SIGHUP through the binary in a pseudo-terminal: at the passcode prompt the terminal is
/// restored, and in the editor no plaintext is left on tmpfs nor saved.
@Suite(.timed, .timeLimit(.minutes(3))) struct SignalHandlingTests {
    let runner = BinaryRunner(extraEnvironment: ["FINGERLOCK_READER": "simulated", "TERM": "dumb"])
    func touches(_ script: String) -> [String: String] { ["FINGERLOCK_SIMULATED_TOUCHES": script] }

    @Test(arguments: [SIGTERM, SIGHUP])
    func aSignalAtThePasscodePromptRestoresTheTerminal(signal: Int32) async throws {
        try await runner.setPasscode()
        let unlock = try PseudoTerminalSession(arguments: ["unlock"], environment: runner.environment)
        await unlock.expect("Passcode (unlock): ")
        #expect(!unlock.terminalIsCooked)
        let pid = try #require(unlock.programPID)
        kill(pid, signal)
        _ = await unlock.waitForExit()
        #expect(unlock.terminalIsCooked, "the terminal was left without echo")
    }

    @Test func aSignalWhileEditingLeavesNoPlaintextOnTmpfs() async throws {
        let runtime = "/dev/shm/fl-runtime-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let script = runtime + "-editor.sh"
        let marker = "SIGTERM-\(UUID().uuidString)"
        try "#!/bin/sh\nprintf '# t\\n\\n\(marker)\\n' > \"$1\"\necho editing\nsleep 30\n".write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o700)
        try await runner.setPasscode()
        _ = try await runner.enroll("right-thumb", touches: "right-thumb*5")
        let edit = try PseudoTerminalSession(
            arguments: ["notes", "add"],
            environment: runner.environment.merging(["EDITOR": script, "XDG_RUNTIME_DIR": runtime].merging(touches("right-thumb")) { $1 }) { $1 })
        await edit.expect("editing")
        let pid = try #require(edit.programPID)
        kill(pid, SIGTERM)
        _ = await edit.waitForExit()
        #expect(try FileManager.default.contentsOfDirectory(atPath: runtime).isEmpty)
        let listed = try await runner.run(["notes", "list", "--json"], environment: touches("right-thumb"))
        #expect(!listed.stdout.contains(marker))
    }
}
