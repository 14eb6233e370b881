import Foundation
import Testing

extension BinaryRunner {
    static let passcode = "plum tree 42"

    /// `passcode set` from a script; returns the recovery key printed on stdout.
    @discardableResult
    func setPasscode() async throws -> String {
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
@Suite(.timeLimit(.minutes(3))) struct SimulatedEndToEndTests {
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

    @Test func enrollWithARetryThenVerifyMatchAndNoMatch() async throws {
        let recovery = try await runner.setPasscode()
        #expect(recovery.split(separator: "-").count >= 10)
        let enroll = try await runner.enroll("left-index-finger", touches: "left-index-finger*2,right-thumb,retry:center,left-index-finger*3")
        #expect(enroll.status == 0, "\(enroll.stderr)")
        #expect(enroll.stdout.contains("stage 1/5"))
        #expect(enroll.stdout.contains("stage 5/5"))
        #expect(enroll.stdout.contains("Center your finger"))
        #expect(enroll.stdout.contains("The scan did not work"))

        let fingers = try await runner.run(["fingers", "--json"])
        #expect(fingers.status == 0, "\(fingers.stderr)")
        let list = try #require(JSONSerialization.jsonObject(with: Data(fingers.stdout.utf8)) as? [[String: Any]])
        #expect(list.count == 1)
        #expect(list.first?["finger"] as? String == "left-index-finger")
        #expect(list.first?["reader"] as? String == "simulated:0")
        #expect((list.first?["enrolled"] as? String)?.hasSuffix("Z") == true)

        let match = try await runner.run(["verify"], environment: touches("left-index-finger"))
        #expect(match.status == 0, "\(match.stderr)")
        #expect(match.stdout.contains("Match: left-index-finger"))

        let named = try await runner.run(["verify", "left-index-finger"], environment: touches("retry:short,left-index-finger"))
        #expect(named.status == 0)
        #expect(named.stderr.contains("too short"))

        let noMatch = try await runner.run(["verify"], environment: touches("right-index-finger"))
        #expect(noMatch.status == 1)
        #expect(noMatch.stderr == "fingerlock: No match.\n")

        let unknown = try await runner.run(["verify"], environment: touches("unknown"))
        #expect(unknown.status == 1)

        // A spelling the fast parser leaves to ArgumentParser runs the same command.
        let parsed = try await runner.run(["verify", "--", "left-index-finger"], environment: touches("left-index-finger"))
        #expect(parsed.status == 0, "\(parsed.stderr)")
        #expect(parsed.stdout.contains("Match: left-index-finger"))
        let wrongFinger = try await runner.run(["verify", "--", "left-index-finger"], environment: touches("right-index-finger"))
        #expect(wrongFinger.status == 1)
        #expect(wrongFinger.stderr == "fingerlock: No match.\n")
    }

    @Test(arguments: [
        ("unplug", Int32(4), "unplugged"),
        ("busy", 4, "busy"),
        ("error", 4, "device error"),
        ("timeout", 1, "No finger was detected"),
        ("", 1, "No finger was detected"),
        ("absent", 4, "absent"),
    ])
    func verifyFailuresHaveTheirExitCodes(script: String, status: Int32, message: String) async throws {
        try await runner.setPasscode()
        #expect(try await runner.enroll("right-thumb", touches: "right-thumb*5").status == 0)
        let result = try await runner.run(["verify"], environment: touches(script))
        #expect(result.status == status)
        #expect(result.stderr.contains(message))
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    @Test func aFailureMidEnrollSavesNothing() async throws {
        try await runner.setPasscode()
        let unplugged = try await runner.enroll("right-index-finger", touches: "right-index-finger*2,unplug")
        #expect(unplugged.status == 4)
        #expect(unplugged.stderr.contains("Nothing was saved"))
        let fingers = try await runner.run(["fingers", "--json"])
        #expect(fingers.status == 0)
        #expect(fingers.stdout.filter { !$0.isWhitespace } == "[]")
    }

    @Test func nothingSetUpNothingEnrolledOrAnUnknownFinger() async throws {
        let noVault = try await runner.run(["verify"], environment: touches("right-thumb"))
        #expect(noVault.status == 7)
        #expect(noVault.stderr.contains("passcode set"))
        let noVaultEnroll = try await runner.enroll("right-thumb", touches: "right-thumb*5")
        #expect(noVaultEnroll.status == 7)
        try await runner.setPasscode()
        let nothing = try await runner.run(["verify"], environment: touches("right-thumb"))
        #expect(nothing.status == 7)
        #expect(try await runner.enroll("right-thumb", touches: "right-thumb*5").status == 0)
        let other = try await runner.run(["verify", "left-thumb"], environment: touches("left-thumb"))
        #expect(other.status == 5)
    }

    @Test func forgetOneOrAllNeedsThePasscode() async throws {
        try await runner.setPasscode()
        _ = try await runner.enroll("right-thumb", touches: "right-thumb*5")
        _ = try await runner.enroll("left-thumb", touches: "left-thumb*5")
        let noPasscode = try await runner.run(["forget", "right-thumb"])
        #expect(noPasscode.status == 8)
        let wrong = try await runner.run(["forget", "right-thumb", "--passcode-stdin"], stdin: "not it at all\n")
        #expect(wrong.status == 1)
        let missing = try await runner.run(["forget", "right-little-finger", "--passcode-stdin"], stdin: "\(BinaryRunner.passcode)\n")
        #expect(missing.status == 5)
        let one = try await runner.run(["forget", "right-thumb", "--passcode-stdin"], stdin: "\(BinaryRunner.passcode)\n")
        #expect(one.status == 0)
        #expect(try await runner.run(["verify", "right-thumb"], environment: touches("right-thumb")).status == 5)
        #expect(try await runner.run(["verify"], environment: touches("left-thumb")).status == 0)
        let all = try await runner.run(["forget", "--all", "--passcode-stdin"], stdin: "\(BinaryRunner.passcode)\n")
        #expect(all.status == 0)
        #expect(try await runner.run(["verify"], environment: touches("left-thumb")).status == 7)
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
        try await runner.setPasscode()
        for attempt in 1...4 {
            let wrong = try await runner.run(["unlock", "--passcode-stdin"], stdin: "wrong \(attempt)\n")
            #expect(wrong.status == 1)
            #expect(wrong.stderr == "fingerlock: Wrong passcode.\n")
        }
        // The fifth wrong passcode, killed while scrypt runs: the failure was counted before.
        let process = try runner.start(["unlock", "--passcode-stdin"], stdin: "wrong 5\n")
        usleep(150_000)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let attempts = try String(contentsOfFile: runner.dataDirectory + "/attempts", encoding: .utf8)
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

    @Test func aHardwareVaultRefusesTheSimulatedReader() async throws {
        let hardware = BinaryRunner(extraEnvironment: ["FP_DRIVERS_WHITELIST": "none"])
        try await hardware.setPasscode()
        let enroll = try await hardware.run(
            ["enroll", "--reader", "simulated", "--passcode-stdin"], environment: touches("right-index-finger*5"),
            stdin: "\(BinaryRunner.passcode)\n")
        #expect(enroll.status == 4)
        #expect(enroll.stderr.contains("does not accept the test reader simulated:0"))
    }

    @Test func configNeedsThePasscodeToChangeAndChecksRanges() async throws {
        try await runner.setPasscode()
        let all = try await runner.run(["config", "get"])
        #expect(all.stdout == "cache-expiry = 8h\nreuse-window = 0s\nmax-tries = 3\nscan-timeout = 30s\nclip-clear = 45s\nhistory-limit = 10\ntrash-keep = 720h\n")
        #expect(try await runner.run(["config", "set", "max-tries", "5"]).status == 8)
        #expect(try await runner.run(["config", "set", "cache-expiry", "49h", "--passcode-stdin"], stdin: "x\n").status == 64)
        let set = try await runner.run(["config", "set", "cache-expiry", "90m", "--passcode-stdin"], stdin: "\(BinaryRunner.passcode)\n")
        #expect(set.status == 0)
        #expect(try await runner.run(["config", "get", "cache-expiry"]).stdout == "1h30m\n")
    }

    @Test func passcodeChangeAndResetFromAScript() async throws {
        let recovery = try await runner.setPasscode()
        let change = try await runner.run(["passcode", "change", "--passcode-stdin"], stdin: "\(BinaryRunner.passcode)\nnew one here\nnew one here\n")
        #expect(change.status == 0, "\(change.stderr)")
        #expect(try await runner.run(["unlock", "--passcode-stdin"], stdin: "\(BinaryRunner.passcode)\n").status == 1)
        #expect(try await runner.run(["unlock", "--passcode-stdin"], stdin: "new one here\n").status == 0)
        let reset = try await runner.run(["passcode", "reset", "--passcode-stdin"], stdin: "\(recovery.lowercased())\nafter reset 1\nafter reset 1\n")
        #expect(reset.status == 0, "\(reset.stderr)")
        #expect(try await runner.run(["unlock", "--passcode-stdin"], stdin: "after reset 1\n").status == 0)
        let again = try await runner.run(["passcode", "set", "--passcode-stdin"], stdin: "x12345\nx12345\n")
        #expect(again.status == 64)
    }

    @Test func usageErrorsAreOneLineWithStatus64() async throws {
        for arguments in [["enroll", "nose"], ["forget"], ["verify", "--bogus"], ["readers", "--reader", "a:"], ["unlock", "--passcode-stdin", "--passcode-fd", "3"]] {
            let result = try await runner.run(arguments)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(arguments): \(result.stderr)")
        }
        let badScript = try await runner.run(["verify"], environment: touches("left-thumb,wiggle"))
        #expect(badScript.status == 64)
        #expect(badScript.stderr.contains("'wiggle'"))
    }

    @Test func jsonErrorsAreObjects() async throws {
        let result = try await runner.run(["readers", "--json"], environment: touches("bogus"))
        #expect(result.status == 64)
        let object = try #require(JSONSerialization.jsonObject(with: Data(result.stderr.utf8)) as? [String: String])
        #expect(object["error"] == "usage")
        #expect(object["message"]?.contains("bogus") == true)
    }

    @Test func globalOptionsWorkBeforeOrAfterTheCommandAndTheFlagWins() async throws {
        let elsewhere = runner.dataDirectory + "-other"
        let set = try await runner.run(["--data-dir", elsewhere, "passcode", "set", "--passcode-stdin"], stdin: "\(BinaryRunner.passcode)\n\(BinaryRunner.passcode)\n")
        #expect(set.status == 0)
        #expect(FileManager.default.fileExists(atPath: elsewhere + "/vault.sqlite"))
        #expect(!FileManager.default.fileExists(atPath: runner.dataDirectory))
        let config = try await runner.run(["config", "get", "--data-dir=\(elsewhere)", "--reader", "simulated"])
        #expect(config.status == 0)
    }

    @Test func aDataDirectoryOthersCanReadIsRefused() async throws {
        try await runner.setPasscode()
        chmod(runner.dataDirectory, 0o755)
        let result = try await runner.run(["fingers"])
        #expect(result.status == 6)
        #expect(result.stderr.contains("chmod 700"))
    }
}
