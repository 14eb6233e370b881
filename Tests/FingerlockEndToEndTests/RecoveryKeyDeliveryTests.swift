import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A new recovery key is the only way back in once the passcode is forgotten: `passcode set` and
/// `rekey` refuse, before changing anything, to send it where it would be lost, and
/// `--recovery-key-file` puts it in a new private file for scripts.
@Suite(.timed, .timeLimit(.minutes(3))) struct RecoveryKeyDeliveryTests {
    let runner = BinaryRunner(extraEnvironment: ["FINGERLOCK_READER": "simulated"])
    var passcodeFile: String { runner.dataDirectory + "-passcode" }
    var vaultPath: String { runner.dataDirectory + "/vault.sqlite" }

    init() throws {
        try Data("\(BinaryRunner.passcode)\n\(BinaryRunner.passcode)\n".utf8).write(to: URL(fileURLWithPath: passcodeFile))
    }

    /// `sh -c SCRIPT` with `$FL` the binary and `$FLPASS` the passcode file (the passcode twice);
    /// returns the script's status and what it wrote on stderr.
    func shell(_ script: String, environment: [String: String] = [:]) async throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        process.environment = runner.environment.merging(environment) { $1 }.merging(
            ["FL": BinaryRunner.binaryPath, "FLPASS": passcodeFile]) { $1 }
        let error = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = error
        try process.run()
        let deadline = ContinuousClock.now + .seconds(90)
        while process.isRunning && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        let text = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return (process.terminationStatus, text)
    }

    /// Whether `key` still resets the passcode (a reset that works changes the passcode to the same one).
    func recoveryKeyWorks(_ key: String) async throws -> Bool {
        let reset = try await runner.run(
            ["passcode", "reset", "--passcode-stdin"], stdin: "\(key)\n\(BinaryRunner.passcode)\n\(BinaryRunner.passcode)\n")
        return reset.status == 0
    }

    static func key(in text: String) -> String? {
        text.split(separator: "\n").first { $0.hasPrefix("Recovery key") }.flatMap { $0.split(separator: ": ").last.map(String.init) }
    }

    @Test func passcodeSetIntoDevNullIsRefusedAndCreatesNoVault() async throws {
        let result = try await shell("\"$FL\" passcode set --passcode-stdin <\"$FLPASS\" >/dev/null")
        #expect(result.status == 6)
        #expect(
            result.stderr
                == "fingerlock: The new recovery key would be lost: stdout is /dev/null, which keeps nothing. Nothing was changed; use --recovery-key-file FILE, or let stdout reach you.\n"
        )
        #expect(!FileManager.default.fileExists(atPath: vaultPath))
    }

    @Test func rekeyIntoDevNullOrAClosedStdoutKeepsTheOldKey() async throws {
        let old = try await runner.setPasscode()
        let devNull = try await shell("\"$FL\" rekey --passcode-fd 3 3<\"$FLPASS\" >/dev/null")
        #expect(devNull.status == 6)
        #expect(devNull.stderr.contains("stdout is /dev/null"))
        let closed = try await shell("\"$FL\" rekey --passcode-fd 3 3<\"$FLPASS\" >&-")
        #expect(closed.status == 6)
        #expect(closed.stderr.contains("stdout is closed"), "\(closed.stderr)")
        #expect(try await recoveryKeyWorks(old))
    }

    /// A reader that never reads and quits (here `sleep`): whether fingerlock sees it gone before
    /// writing or while waiting for the key to be read, the vault is not rekeyed.
    @Test(arguments: ["sleep 2", "true"]) func rekeyIntoAPipeNobodyReadsKeepsTheOldKey(reader: String) async throws {
        let old = try await runner.setPasscode()
        let status = runner.dataDirectory + "-status"
        let result = try await shell(
            "{ \"$FL\" rekey --passcode-fd 3 3<\"$FLPASS\"; echo $? >\"$STATUS\"; } | \(reader)", environment: ["STATUS": status])
        #expect(result.status == 0)
        #expect(try String(contentsOfFile: status, encoding: .utf8) == "6\n")
        #expect(result.stderr.contains("fingerlock: "), "\(result.stderr)")
        #expect(try await recoveryKeyWorks(old))
    }

    @Test func rekeyIntoAPipeThatIsReadShowsTheNewKey() async throws {
        let old = try await runner.setPasscode()
        let output = runner.dataDirectory + "-out"
        let result = try await shell("\"$FL\" rekey --passcode-fd 3 3<\"$FLPASS\" | cat >\"$OUT\"", environment: ["OUT": output])
        #expect(result.status == 0, "\(result.stderr)")
        let new = try #require(Self.key(in: try String(contentsOfFile: output, encoding: .utf8)))
        #expect(new != old)
        #expect(try await recoveryKeyWorks(new))
        #expect(try await !recoveryKeyWorks(old))
    }

    @Test func recoveryKeyFileIsNewAndPrivate() async throws {
        let file = runner.home + "/recovery.txt"
        let set = try await shell(
            "\"$FL\" passcode set --passcode-stdin --recovery-key-file \"$KEY\" <\"$FLPASS\" >/dev/null", environment: ["KEY": file])
        #expect(set.status == 0, "\(set.stderr)")
        #expect(set.stderr.contains("The new recovery key is in \(file) (mode 0600)"))
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
        let first = try #require(Self.key(in: try String(contentsOfFile: file, encoding: .utf8)))

        // An existing file is refused before the passcode is asked: nothing changes.
        let again = try await shell("\"$FL\" rekey --passcode-fd 3 3<\"$FLPASS\" --recovery-key-file \"$KEY\"", environment: ["KEY": file])
        #expect(again.status == 64)
        #expect(again.stderr == "fingerlock: \(file) already exists; fingerlock writes only a new file there. Nothing was changed.\n")
        #expect(try String(contentsOfFile: file, encoding: .utf8).contains(first))

        // So is a symbolic link, even one to a place that does not exist yet.
        let link = runner.home + "/link.txt"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: runner.home + "/elsewhere.txt")
        let linked = try await shell("\"$FL\" rekey --passcode-fd 3 3<\"$FLPASS\" --recovery-key-file \"$KEY\"", environment: ["KEY": link])
        #expect(linked.status == 64)
        #expect(!FileManager.default.fileExists(atPath: runner.home + "/elsewhere.txt"))
        #expect(try await recoveryKeyWorks(first))

        let rotated = runner.home + "/rotated.txt"
        let rekey = try await shell(
            "\"$FL\" rekey --passcode-fd 3 3<\"$FLPASS\" --recovery-key-file \"$KEY\" >/dev/null", environment: ["KEY": rotated])
        #expect(rekey.status == 0, "\(rekey.stderr)")
        let second = try #require(Self.key(in: try String(contentsOfFile: rotated, encoding: .utf8)))
        #expect(try await recoveryKeyWorks(second))
        #expect(try await !recoveryKeyWorks(first))
    }
}
