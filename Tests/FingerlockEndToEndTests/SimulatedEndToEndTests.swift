import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

extension BinaryRunner {
    static let passcode = "plum tree 42"

    /// The vault a test starts from (the vault fixture): `passcode set` run in this process at the
    /// test KDF cost, in the binary's data directory, its key cached in the binary's keyring
    /// namespace, as the binary would have left it; the binary then opens the vault at that stored
    /// cost. Returns the recovery key. The calibrated cost (0.5 s and more a derivation) is what
    /// `passcode set` tests pay: they run `setPasscodeThroughTheBinary()`.
    @discardableResult
    func setPasscode() async throws -> String {
        try await InProcessCLI(vaultFixtureFor: environment, home: home).setPasscode(Self.passcode)
    }

    /// `passcode set` from a script, run by the built binary at the calibrated cost; returns the
    /// recovery key printed on stdout.
    @discardableResult
    func setPasscodeThroughTheBinary() async throws -> String {
        let result = try await run(["passcode", "set", "--passcode-stdin"], stdin: "\(Self.passcode)\n\(Self.passcode)\n")
        #expect(result.status == 0, "passcode set: \(result.stderr)")
        let line = result.stdout.split(separator: "\n").first { $0.hasPrefix("Recovery key") } ?? ""
        return String(line.split(separator: ": ").last ?? "")
    }

    func enroll(_ finger: String, touches: String) async throws -> Result {
        try await run(["enroll", finger, "--passcode-stdin"], environment: ["FINGERLOCK_SIMULATED_TOUCHES": touches], stdin: "\(Self.passcode)\n")
    }
}

/// The built binary with `--reader simulated` and scripted touches, as a user's CI would run it.
@Suite(.timed, .timeLimit(.minutes(3))) struct SimulatedEndToEndTests {
    let runner = BinaryRunner(extraEnvironment: ["FINGERLOCK_READER": "simulated"])

    func touches(_ script: String) -> [String: String] { ["FINGERLOCK_SIMULATED_TOUCHES": script] }

    @Test func readersListsTheSimulatedReaderOnlyWhenAskedFor() async throws {
        let json = try await runner.run(["readers", "--json"])
        #expect(json.status == 0)
        let readers = try #require(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(readers.count == 1)
        #expect(readers.first?["id"] as? String == "simulated:0")
        #expect(readers.first?["deviceId"] as? String == "0")
        #expect(readers.first?["enrollStages"] as? Int == 5)
        #expect(readers.first?["features"] as? [String] == ["identify", "verify"])
        #expect(
            Set(readers.first?.keys.map { $0 } ?? []) == [
                "id", "name", "driver", "deviceId", "scanType", "enrollStages", "enrollStagesKnownAtOpen",
                "enrollStagesMaximum", "features",
            ])
        // The simulated reader's count is fixed and exact.
        #expect(readers.first?["enrollStagesKnownAtOpen"] as? Bool == false)
        #expect(readers.first?["enrollStagesMaximum"] as? Bool == false)

        let auto = try await runner.run(["readers", "--json", "--reader", "auto"], environment: ["FP_DRIVERS_WHITELIST": "none"])
        #expect(auto.status == 0)
        #expect(!auto.stdout.contains("simulated"))

        let staged = try await runner.run(["readers"], environment: ["FINGERLOCK_SIMULATED_STAGES": "3"])
        #expect(staged.stdout.contains("enroll stages: 3"))
    }

    @Test func lockMakesThePasscodeNecessaryAgain() async throws {
        try await runner.setPasscode()
        _ = try await runner.enroll("right-thumb", touches: "right-thumb*5")
        #expect(try await runner.run(["lock"]).stdout.contains("Locked"))
        // Without a terminal and a passcode source: exit 8 at once, no scan.
        let locked = try await runner.run(["verify"], environment: touches("right-thumb"))
        #expect(locked.status == 8)
        #expect(locked.stderr.contains("--passcode-stdin"))
        let scripted = try await runner.run(["verify", "--passcode-stdin"], environment: touches("right-thumb"), stdin: "\(BinaryRunner.passcode)\n")
        #expect(scripted.status == 0)
        // The passcode cached the key again.
        #expect(try await runner.run(["verify"], environment: touches("right-thumb")).status == 0)
        // A passcode source with nothing in it: no passcode, and nothing to count.
        let empty = runner.dataDirectory + "-empty"
        #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
        defer { try? FileManager.default.removeItem(atPath: empty) }
        let unlock = try await runner.run(["unlock", "--passcode-fd", "3"], environment: [:], stdin: "", descriptorsFromFiles: [3: empty])
        #expect(unlock.status == 8 || unlock.status == 1, "\(unlock.stderr)")
    }

    @Test func wrongPasscodesEscalateToADelayThatSurvivesSIGKILL() async throws {
        try await runner.setPasscodeThroughTheBinary()
        for attempt in 1...4 {
            let wrong = try await runner.run(["unlock", "--passcode-stdin"], stdin: "wrong \(attempt)\n")
            #expect(wrong.status == 1)
            #expect(wrong.stderr == "fingerlock: Wrong passcode.\n")
        }
        // The fifth wrong passcode, killed while scrypt runs: the failure was counted before.
        // Killed once the count is written (scrypt at the calibrated cost takes far longer than the
        // wait for it), not after a fixed time a busy machine may not have started the binary in.
        let process = try runner.start(["unlock", "--passcode-stdin"], stdin: "wrong 5\n")
        let attemptsPath = runner.dataDirectory + "/attempts"
        let deadline = ContinuousClock.now + .seconds(20)
        while (try? String(contentsOfFile: attemptsPath, encoding: .utf8))?.contains("passcodes=5 ") != true,
            process.isRunning, ContinuousClock.now < deadline
        {
            try await Task.sleep(for: .milliseconds(2))
        }
        #expect(process.isRunning, "the fifth attempt ended before it could be killed mid-check")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let attempts = try String(contentsOfFile: attemptsPath, encoding: .utf8)
        #expect(attempts.contains("passcodes=5 "))
        let delayed = try await runner.run(["unlock", "--passcode-stdin"], stdin: "\(BinaryRunner.passcode)\n")
        #expect(delayed.status == 3)
        #expect(delayed.stderr.contains("Too many wrong passcodes (5): try again in"))
    }

    @Test func aTamperedVaultIsADataError() async throws {
        try await runner.setPasscode()
        _ = try await runner.enroll("right-thumb", touches: "right-thumb*5")
        let path = runner.dataDirectory + "/vault.sqlite"
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        // Damage every page past the header: sealed rows and the b-tree around them.
        for index in stride(from: 4096, to: bytes.count, by: 97) { bytes[index] ^= 0x5A }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let result = try await runner.run(["fingers"])
        #expect(result.status == 6 || result.status == 8, "\(result.stderr)")
        let scripted = try await runner.run(["fingers", "--passcode-stdin"], stdin: "\(BinaryRunner.passcode)\n")
        #expect(scripted.status == 6, "\(scripted.stderr)")
    }

    @Test func aDataDirectoryOthersCanReadIsRefused() async throws {
        try await runner.setPasscode()
        chmod(runner.dataDirectory, 0o755)
        let result = try await runner.run(["fingers"])
        #expect(result.status == 6)
        #expect(result.stderr.contains("chmod 700"))
    }
}
