import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Attacks on the vault and policy from outside, each through the built binary: restore, lock, an
/// emptied counter file, and output that cannot be written.
@Suite(.timed, .timeLimit(.minutes(3))) struct RestoreLockAndFailedOutputTests {
    let runner = BinaryRunner(extraEnvironment: ["FINGERLOCK_READER": "simulated"])
    let touch = ["FINGERLOCK_SIMULATED_TOUCHES": "right-thumb"]
    var passcodeFile: String { runner.dataDirectory + "-passcode" }

    init() throws {
        try Data("\(BinaryRunner.passcode)\n".utf8).write(to: URL(fileURLWithPath: passcodeFile))
    }

    /// A command with the passcode on descriptor 3 (stdin stays free).
    func withPasscode(_ arguments: [String], environment: [String: String] = [:], stdin: String = "") async throws -> BinaryRunner.Result {
        try await runner.run(arguments + ["--passcode-fd", "3"], environment: environment, stdin: stdin, descriptorsFromFiles: [3: passcodeFile])
    }

    /// Runs the binary through `sh -c SCRIPT` (for redirections the runner cannot make), with `$FL`
    /// the binary and `$FLPASS` the passcode file.
    func shell(_ script: String, environment: [String: String] = [:]) async throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        process.environment = runner.environment.merging(environment) { $1 }.merging(
            ["FL": BinaryRunner.binaryPath, "FLPASS": passcodeFile]) { $1 }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = ContinuousClock.now + .seconds(90)
        while process.isRunning && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return process.terminationStatus
    }

    // MARK: 1. restore

    @Test func restoreNeedsTheCurrentPasscodeNeverATouch() async throws {
        try await runner.setPasscode()
        #expect(try await runner.enroll("right-thumb", touches: "right-thumb*5").status == 0)
        #expect(try await withPasscode(["backup", runner.dataDirectory + "-backup"], environment: touch).status == 0)
        // A touch would unlock the notes (the key is cached), but restore asks for the passcode.
        #expect(try await runner.run(["notes", "list"], environment: touch).status == 0)
        let byTouch = try await runner.run(["restore", runner.dataDirectory + "-backup", "--yes"], environment: touch)
        #expect(byTouch.status == 8, "\(byTouch.stderr)")
        let wrong = try await runner.run(
            ["restore", runner.dataDirectory + "-backup", "--yes", "--passcode-stdin"], environment: touch, stdin: "not it at all\n")
        #expect(wrong.status == 1, "\(wrong.stderr)")
    }

    @Test func restoreSaysWhatComesBackAndAsksFirst() async throws {
        try await runner.setPasscode()
        #expect(try await runner.enroll("right-thumb", touches: "right-thumb*5").status == 0)
        let backup = runner.dataDirectory + "-backup"
        #expect(try await withPasscode(["backup", backup], environment: touch).status == 0)
        // Since the backup: a new passcode, the finger forgotten, a stricter setting.
        let newPasscode = "a new passcode 7"
        let change = try await runner.run(
            ["passcode", "change", "--passcode-stdin"], stdin: "\(BinaryRunner.passcode)\n\(newPasscode)\n\(newPasscode)\n")
        #expect(change.status == 0, "\(change.stderr)")
        try Data("\(newPasscode)\n".utf8).write(to: URL(fileURLWithPath: passcodeFile))
        #expect(try await withPasscode(["forget", "right-thumb"]).status == 0)
        #expect(try await withPasscode(["config", "set", "cache-expiry", "1h"]).status == 0)

        // No terminal and no --yes: it says what would change and restores nothing.
        let unconfirmed = try await withPasscode(["restore", backup])
        #expect(unconfirmed.status == 64, "\(unconfirmed.stderr)")
        #expect(unconfirmed.stdout.contains("Passcode afterwards: the passcode valid when the backup was made, NOT the current one."))
        #expect(unconfirmed.stdout.contains("Comes back: right-thumb on simulated:0"))
        #expect(unconfirmed.stdout.contains("Setting cache-expiry: 1h now, 8h after the restore."))
        #expect(try await runner.run(["fingers"]).stdout.contains("No finger is enrolled"))

        // The backup is from before the rekey-free passcode change: the current key opens it, and
        // the passcode it brings back is the old one.
        let restored = try await withPasscode(["restore", backup, "--yes"])
        #expect(restored.status == 0, "\(restored.stderr)")
        let oldPasscode = try await runner.run(["unlock", "--passcode-stdin"], stdin: "\(BinaryRunner.passcode)\n")
        #expect(oldPasscode.status == 0, "\(oldPasscode.stderr)")
    }

    @Test func aTestVaultsBackupNeverTurnsAHardwareDirectoryIntoATestVault() async throws {
        try await runner.setPasscode()
        let backup = runner.dataDirectory + "-backup"
        #expect(try await withPasscode(["backup", backup]).status == 0)
        let hardware = BinaryRunner(extraEnvironment: ["FINGERLOCK_READER": "auto", "FP_DRIVERS_WHITELIST": "none"])
        let set = try await hardware.run(
            ["passcode", "set", "--passcode-stdin"], stdin: "\(BinaryRunner.passcode)\n\(BinaryRunner.passcode)\n")
        #expect(set.stdout.contains("for real readers"), "\(set.stderr)")
        // The current passcode, then the backup's (another vault's).
        let restore = try await hardware.run(
            ["restore", backup, "--yes", "--passcode-stdin"], stdin: "\(BinaryRunner.passcode)\n\(BinaryRunner.passcode)\n")
        #expect(restore.status == 6, "\(restore.stderr)")
        #expect(restore.stderr.contains("test vault"))
        // And into an empty directory, a test backup needs a test reader chosen explicitly.
        let empty = BinaryRunner(extraEnvironment: ["FINGERLOCK_READER": "auto", "FP_DRIVERS_WHITELIST": "none"])
        let intoEmpty = try await empty.run(["restore", backup, "--yes", "--passcode-stdin"], stdin: "\(BinaryRunner.passcode)\n")
        #expect(intoEmpty.status == 6, "\(intoEmpty.stderr)")
        #expect(!FileManager.default.fileExists(atPath: empty.dataDirectory + "/vault.sqlite"))
    }

    // MARK: 3. lock

    @Test func lockForgetsTheKeyEvenFromAnotherDataDirectoryOrWithAnUnreadableVault() async throws {
        try await runner.setPasscode()
        #expect(try await runner.enroll("right-thumb", touches: "right-thumb*5").status == 0)
        #expect(try await runner.run(["notes", "list"], environment: touch).status == 0)
        let elsewhere = try await runner.run(["lock", "--data-dir", runner.dataDirectory + "-elsewhere"])
        #expect(elsewhere.status == 0, "\(elsewhere.stderr)")
        #expect(elsewhere.stdout.hasPrefix("Locked"))
        #expect(try await runner.run(["notes", "list"], environment: touch).status == 8)

        #expect(try await withPasscode(["unlock"]).status == 0)
        try Data("not a vault".utf8).write(to: URL(fileURLWithPath: runner.dataDirectory + "/vault.sqlite"))
        let damaged = try await runner.run(["lock"])
        #expect(damaged.status == 0, "\(damaged.stderr)")
        #expect(damaged.stdout.hasPrefix("Locked"))
        let again = try await runner.run(["lock"])
        #expect(again.stdout.hasPrefix("Already locked"))
    }

    // MARK: 4. attempts

    @Test(arguments: ["", "fingerlock-attempts 1"])
    func anEmptiedOrShortCounterFileIsDamageNotAReset(content: String) async throws {
        try await runner.setPasscode()
        #expect(try await runner.enroll("right-thumb", touches: "right-thumb*5").status == 0)
        for _ in 1...5 {
            #expect(try await runner.run(["verify"], environment: ["FINGERLOCK_SIMULATED_TOUCHES": "unknown"]).status == 1)
        }
        #expect(try await runner.run(["verify"], environment: touch).status == 3)
        try Data(content.utf8).write(to: URL(fileURLWithPath: runner.dataDirectory + "/attempts"))
        let verify = try await runner.run(["verify"], environment: touch)
        #expect(verify.status == 6, "\(verify.stderr)")
        #expect(verify.stderr.contains("damaged"))
    }

    // MARK: 6. output that cannot be written

    @Test func aRecoveryKeyThatCannotBeWrittenCreatesNoVault() async throws {
        let status = try await shell(
            "printf '%s\\n%s\\n' \"$P\" \"$P\" | \"$FL\" passcode set --passcode-stdin >/dev/full", environment: ["P": BinaryRunner.passcode])
        #expect(status == 6)
        #expect(!FileManager.default.fileExists(atPath: runner.dataDirectory + "/vault.sqlite"))
        let closed = try await shell(
            "printf '%s\\n%s\\n' \"$P\" \"$P\" | \"$FL\" passcode set --passcode-stdin >&-", environment: ["P": BinaryRunner.passcode])
        #expect(closed == 6)
        #expect(!FileManager.default.fileExists(atPath: runner.dataDirectory + "/vault.sqlite"))
    }

    @Test func rekeyWithStdoutClosedKeepsTheOldRecoveryKey() async throws {
        let recoveryKey = try await runner.setPasscode()
        #expect(try await shell("\"$FL\" rekey --passcode-fd 3 3<\"$FLPASS\" >&-") == 6)
        #expect(try await shell("\"$FL\" rekey --passcode-fd 3 3<\"$FLPASS\" >/dev/full") == 6)
        // The old recovery key still resets the passcode: nothing was rotated.
        let reset = try await runner.run(
            ["passcode", "reset", "--passcode-stdin"], stdin: "\(recoveryKey)\nnew passcode 99\nnew passcode 99\n")
        #expect(reset.status == 0, "\(reset.stderr)")
    }

    @Test func anExportThatDoesNotFitLeavesNoTruncatedFile() async throws {
        try await runner.setPasscode()
        let body = String(repeating: "a line of a long note\n", count: 200)
        #expect(
            try await runner.run(["notes", "add", "--title", "long", "--passcode-fd", "3"], stdin: body, descriptorsFromFiles: [3: passcodeFile])
                .status == 0)
        let file = runner.dataDirectory + "-export.json"
        // A file size limit of 2 KiB stands in for a full disk (SIGXFSZ ignored, so the write fails).
        let status = try await shell(
            "trap '' XFSZ; ulimit -f 4; exec \"$FL\" export --yes-plaintext --passcode-fd 3 3<\"$FLPASS\" >\"$OUT\"", environment: ["OUT": file])
        #expect(status == 6)
        let size = (try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? -1
        #expect(size == 0)
        #expect(try await shell("exec \"$FL\" export --yes-plaintext --passcode-fd 3 3<\"$FLPASS\" >\"$OUT\"", environment: ["OUT": file]) == 0)
        #expect(try String(contentsOfFile: file, encoding: .utf8).contains("a line of a long note"))

        // Appending (`>>`) to a file that then fills up: what it held before stays, whole.
        let kept = "what the file held before\n"
        try Data(kept.utf8).write(to: URL(fileURLWithPath: file))
        let appended = try await shell(
            "trap '' XFSZ; ulimit -f 4; exec \"$FL\" export --yes-plaintext --passcode-fd 3 3<\"$FLPASS\" >>\"$OUT\"",
            environment: ["OUT": file])
        #expect(appended == 6)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == kept)
    }

    @Test func aListingIntoAFullDiskFails() async throws {
        try await runner.setPasscode()
        #expect(try await withPasscode(["notes", "add", "--title", "t"], stdin: "b").status == 0)
        #expect(try await shell("exec \"$FL\" notes list --passcode-fd 3 3<\"$FLPASS\" >/dev/full") == 6)
    }
}
