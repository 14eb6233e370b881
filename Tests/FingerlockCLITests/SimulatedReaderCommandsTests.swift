import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

/// Commands with `--reader simulated` and scripted touches, as a user's CI would run them, in
/// process (what needs a process of its own, a killed one, descriptors, file modes:
/// SimulatedEndToEndTests).
@Suite(.timed, .timeLimit(.minutes(3))) struct SimulatedReaderCommandsTests {
    let runner = InProcessCLI(extraEnvironment: ["FINGERLOCK_READER": "simulated"])

    func touches(_ script: String) -> [String: String] { ["FINGERLOCK_SIMULATED_TOUCHES": script] }

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
        let missing = try await runner.run(["forget", "right-little-finger", "--passcode-stdin"], stdin: "\(InProcessCLI.passcode)\n")
        #expect(missing.status == 5)
        let one = try await runner.run(["forget", "right-thumb", "--passcode-stdin"], stdin: "\(InProcessCLI.passcode)\n")
        #expect(one.status == 0)
        #expect(try await runner.run(["verify", "right-thumb"], environment: touches("right-thumb")).status == 5)
        #expect(try await runner.run(["verify"], environment: touches("left-thumb")).status == 0)
        let all = try await runner.run(["forget", "--all", "--passcode-stdin"], stdin: "\(InProcessCLI.passcode)\n")
        #expect(all.status == 0)
        #expect(try await runner.run(["verify"], environment: touches("left-thumb")).status == 7)
    }

    @Test func aHardwareVaultRefusesTheSimulatedReader() async throws {
        let hardware = InProcessCLI(extraEnvironment: ["FP_DRIVERS_WHITELIST": "none"])
        try await hardware.setPasscode()
        let enroll = try await hardware.run(
            ["enroll", "--reader", "simulated", "--passcode-stdin"], environment: touches("right-index-finger*5"),
            stdin: "\(InProcessCLI.passcode)\n")
        #expect(enroll.status == 4)
        #expect(enroll.stderr.contains("does not accept the test reader simulated:0"))
    }

    @Test func configNeedsThePasscodeToChangeAndChecksRanges() async throws {
        try await runner.setPasscode()
        let all = try await runner.run(["config", "get"])
        #expect(
            all.stdout
                == "cache-expiry = 8h\nreuse-window = 0s\nmax-tries = 3\nscan-timeout = 30s\nclip-clear = 45s\nhistory-limit = 10\ntrash-keep = 720h\n"
        )
        #expect(try await runner.run(["config", "set", "max-tries", "5"]).status == 8)
        #expect(try await runner.run(["config", "set", "cache-expiry", "49h", "--passcode-stdin"], stdin: "x\n").status == 64)
        let set = try await runner.run(["config", "set", "cache-expiry", "90m", "--passcode-stdin"], stdin: "\(InProcessCLI.passcode)\n")
        #expect(set.status == 0)
        #expect(try await runner.run(["config", "get", "cache-expiry"]).stdout == "1h30m\n")
    }

    @Test func passcodeChangeAndResetFromAScript() async throws {
        let recovery = try await runner.setPasscode()
        let change = try await runner.run(
            ["passcode", "change", "--passcode-stdin"], stdin: "\(InProcessCLI.passcode)\nnew one here\nnew one here\n")
        #expect(change.status == 0, "\(change.stderr)")
        #expect(try await runner.run(["unlock", "--passcode-stdin"], stdin: "\(InProcessCLI.passcode)\n").status == 1)
        #expect(try await runner.run(["unlock", "--passcode-stdin"], stdin: "new one here\n").status == 0)
        let reset = try await runner.run(
            ["passcode", "reset", "--passcode-stdin"], stdin: "\(recovery.lowercased())\nafter reset 1\nafter reset 1\n")
        #expect(reset.status == 0, "\(reset.stderr)")
        #expect(try await runner.run(["unlock", "--passcode-stdin"], stdin: "after reset 1\n").status == 0)
        let again = try await runner.run(["passcode", "set", "--passcode-stdin"], stdin: "x12345\nx12345\n")
        #expect(again.status == 64)
    }

    @Test func usageErrorsAreOneLineWithStatus64() async throws {
        for arguments in [
            ["enroll", "nose"], ["forget"], ["verify", "--bogus"], ["readers", "--reader", "a:"],
            ["unlock", "--passcode-stdin", "--passcode-fd", "3"],
        ] {
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
        let set = try await runner.run(
            ["--data-dir", elsewhere, "passcode", "set", "--passcode-stdin"], stdin: "\(InProcessCLI.passcode)\n\(InProcessCLI.passcode)\n")
        #expect(set.status == 0)
        #expect(FileManager.default.fileExists(atPath: elsewhere + "/vault.sqlite"))
        #expect(!FileManager.default.fileExists(atPath: runner.dataDirectory))
        let config = try await runner.run(["config", "get", "--data-dir=\(elsewhere)", "--reader", "simulated"])
        #expect(config.status == 0)
    }

}
