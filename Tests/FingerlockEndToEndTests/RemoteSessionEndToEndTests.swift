import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

/// The built binary started under a process named `sshd` (a copy of `/bin/sh`), with none of
/// sshd's variables: as after `su -` or `env -u SSH_CONNECTION`, only the process ancestry shows
/// the login is remote.
@Suite(.timed, .timeLimit(.minutes(3))) struct RemoteSessionEndToEndTests {
    let runner = BinaryRunner(extraEnvironment: ["FINGERLOCK_READER": "simulated", "TERM": "dumb"])

    @Test func verifyUnderSSHDWithoutItsVariablesDoesNotUseTheReader() async throws {
        try await runner.setPasscode()
        _ = try await runner.enroll("right-thumb", touches: "right-thumb*5")
        let touch = ["FINGERLOCK_SIMULATED_TOUCHES": "right-thumb"]
        let direct = try await runner.run(["verify"], environment: touch)
        let underSSHD = try await runUnderFakeSSHD(["verify"], environment: runner.environment.merging(touch) { $1 })
        #expect(underSSHD.status == 4, "\(underSSHD)")
        #expect(underSSHD.stderr.contains("remote (SSH) session"))
        // Where this machine's own session is remote too, that may be the reason given instead.
        if direct.status == 0 {
            #expect(underSSHD.stderr.contains("runs under sshd"), "\(underSSHD.stderr)")
        }
    }

    private func runUnderFakeSSHD(_ arguments: [String], environment: [String: String]) async throws -> BinaryRunner.Result {
        let directory = runner.dataDirectory + "-bin"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let sshd = directory + "/sshd"
        // The shell itself, not the `/bin/sh` link, so that it runs under the copy's name.
        try FileManager.default.copyItem(atPath: URL(fileURLWithPath: "/bin/sh").resolvingSymlinksInPath().path, toPath: sshd)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: sshd)
        // `; exit $?` keeps the shell (the "sshd") alive as the parent instead of exec'ing.
        process.arguments = ["-c", "/usr/bin/setsid --wait \"$0\" \"$@\"; exit $?", BinaryRunner.binaryPath] + arguments
        process.environment = environment
        let output = Pipe()
        let error = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let collected = Collector(output: output, error: error)
        while process.isRunning { try await Task.sleep(for: .milliseconds(5)) }
        let (out, err) = collected.finish()
        return BinaryRunner.Result(status: process.terminationStatus, stdout: out, stderr: err)
    }
}
