import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

/// A person at the terminal: passcode prompts on /dev/tty without echo, and the simulated reader
/// asking which finger touches.
@Suite(.timed, .timeLimit(.minutes(2))) struct InteractiveTerminalTests {
    let runner = BinaryRunner(extraEnvironment: ["FINGERLOCK_READER": "simulated", "TERM": "dumb"])
    let passcode = BinaryRunner.passcode

    func session(_ arguments: [String], environment: [String: String] = [:]) throws -> PseudoTerminalSession {
        try PseudoTerminalSession(arguments: arguments, environment: runner.environment.merging(environment) { $1 })
    }

    @Test func firstRunSetsThePasscodeAfterAMismatchAndShowsTheRecoveryKeyOnce() async throws {
        let set = try session(["passcode", "set"])
        await set.expect("New passcode (at least 6 characters): ")
        set.send("abc\r")
        await set.expect("The passcode must have at least 6 characters.")
        await set.expect("New passcode (at least 6 characters): ", after: "The passcode must have")
        set.send("\(passcode)\r")
        await set.expect("Confirm the new passcode: ")
        set.send("plum tree 43\r")
        await set.expect("The passcodes didn't match. Try again.")
        await set.expect("New passcode (at least 6 characters): ", after: "didn't match")
        set.send("\(passcode)\r")
        await set.expect("Confirm the new passcode: ", count: 2)
        set.send("\(passcode)\r")
        await set.expect("Your recovery key")
        await set.expect("Press Enter once you have saved it")
        set.send("\r")
        #expect(await set.waitForExit() == 0)
        #expect(set.output.contains("Passcode set; the vault is ready (a test vault"))
        #expect(!set.output.contains(passcode), "the passcode was echoed")
        let key = set.output.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            .first { $0.split(separator: "-").count >= 10 }
        #expect(key != nil)
        // The key opens the vault: a reset with it works.
        let reset = try await runner.run(["passcode", "reset", "--passcode-stdin"], stdin: "\(key ?? "")\nafter reset\nafter reset\n")
        #expect(reset.status == 0, "\(reset.stderr)")
    }

    @Test func enrollAsksThePasscodeThenTypedFingerNamesEnrollAndMatch() async throws {
        try await runner.setPasscode()
        let enroll = try session(["enroll", "right-thumb"])
        await enroll.expect("Passcode (enroll a finger): ")
        enroll.send("\(passcode)\r")
        for stage in 1...5 {
            await enroll.expect("touch \(stage)/5 for right-thumb")
            enroll.send(stage == 2 ? "left-thumb\n" : "right-thumb\n")
            if stage == 2 {
                await enroll.expect("The scan did not work")
                await enroll.expect("touch 2/5 for right-thumb")
                enroll.send("right-thumb\n")
            }
        }
        #expect(await enroll.waitForExit() == 0)
        #expect(enroll.output.contains("Enrolled right-thumb"))
        #expect(!enroll.output.contains(passcode))
        // Each stage's progress is on the screen before the next touch is asked for.
        let output = enroll.output
        let opened = try #require(output.range(of: "Touch the sensor 5 times")).lowerBound
        #expect(opened < (try #require(output.range(of: "touch 1/5")).lowerBound))
        for stage in 1...4 {
            let done = try #require(output.range(of: "stage \(stage)/5")).lowerBound
            let next = try #require(output.range(of: "touch \(stage + 1)/5")).lowerBound
            #expect(done < next, "stage \(stage)/5 printed after the next prompt")
        }

        let verify = try session(["verify"])
        await verify.expect("type a finger name, or Enter for the passcode")
        verify.send("wrist\n")
        await verify.expect("That is not a finger name")
        #expect(!verify.output.contains("wrist"))
        verify.send("right-thumb\n")
        #expect(await verify.waitForExit() == 0)
        #expect(verify.output.contains("Match: right-thumb"))
        // A finger name is echoed as it is typed.
        #expect(verify.output.contains("right-thumb\r\n"))
    }

    @Test func aPasscodeTypedAtTheTouchPromptIsNeverShown() async throws {
        try await runner.setPasscode()
        #expect(try await runner.enroll("right-thumb", touches: "right-thumb*5").status == 0)
        let verify = try session(["verify"])
        await verify.expect("type a finger name, or Enter for the passcode")
        // Starts like a finger name ("left-…"), then is not one: what showed is erased.
        verify.send("left-\(passcode)\n")
        await verify.expect("That is not a finger name")
        verify.send("\u{15}right-thumb\n")
        #expect(await verify.waitForExit() == 0)
        #expect(!verify.output.contains(passcode), "the passcode was shown: \(verify.output.debugDescription)")
        #expect(!verify.output.contains("left-\(passcode.prefix(1))"))
    }

    @Test func enterAtVerifysScanEndsItAsCancelled() async throws {
        try await runner.setPasscode()
        #expect(try await runner.enroll("right-thumb", touches: "right-thumb*5").status == 0)
        let verify = try session(["verify"])
        await verify.expect("Enter for the passcode")
        verify.send("\n")
        #expect(await verify.waitForExit() == 2)
        #expect(verify.output.contains("Cancelled; no finger was checked."), "\(verify.output)")
        #expect(!verify.output.contains("passcode was chosen"))
    }

    @Test func ctrlCAtVerifysScanSaysItWasCancelled() async throws {
        try await runner.setPasscode()
        #expect(try await runner.enroll("right-thumb", touches: "right-thumb*5").status == 0)
        let verify = try session(["verify"])
        await verify.expect("Enter for the passcode")
        verify.send("\u{03}")
        #expect(await verify.waitForExit() == 2)
        #expect(verify.output.contains("Cancelled; no finger was checked."), "\(verify.output)")
        #expect(!verify.output.contains("passcode was chosen"))
    }

    @Test func ctrlCDuringEnrollmentSavesNothing() async throws {
        try await runner.setPasscode()
        let enroll = try session(["enroll", "left-thumb"])
        await enroll.expect("Passcode (enroll a finger): ")
        enroll.send("\(passcode)\r")
        await enroll.expect("touch 1/5")
        enroll.send("left-thumb\n")
        await enroll.expect("touch 2/5")
        enroll.send("\u{03}")
        #expect(await enroll.waitForExit() == 2)
        #expect(enroll.output.contains("Enrollment cancelled; nothing was saved."))
        let fingers = try await runner.run(["fingers", "--json"])
        #expect(fingers.status == 0)
        #expect(!fingers.stdout.contains("left-thumb"))
    }

    @Test func ctrlCAtThePasscodePromptCancelsAndRestoresTheTerminal() async throws {
        try await runner.setPasscode()
        let unlock = try session(["unlock"])
        await unlock.expect("Passcode (unlock): ")
        unlock.send("plum")
        unlock.send("\u{03}")
        #expect(await unlock.waitForExit() == 2)
        #expect(unlock.output.contains("Cancelled at the passcode prompt; nothing was changed."))
        #expect(!unlock.output.contains("plum"))
    }

    @Test func aRunningPasscodeDelayRefusesChangeAndResetBeforeAnyPrompt() async throws {
        try await runner.setPasscode()
        for _ in 0..<5 {
            #expect(try await runner.run(["unlock", "--passcode-stdin"], stdin: "wrong guess\n").status == 1)
        }
        for command in [["passcode", "change"], ["passcode", "reset"]] {
            let session = try session(command)
            #expect(await session.waitForExit() == 3, "\(command)")
            #expect(session.output.contains("Too many wrong passcodes (5): try again in"))
            #expect(!session.output.contains("passcode:") && !session.output.contains("Recovery key"), "\(command) prompted first")
        }
    }

    @Test func wrongPasscodesAtTheTerminalGetThreeTries() async throws {
        try await runner.setPasscode()
        let unlock = try session(["unlock"])
        for attempt in 1...3 {
            await unlock.expect("Passcode (unlock): ", count: attempt)
            unlock.send("wrong \(attempt)\r")
            if attempt < 3 { await unlock.expect("Wrong passcode, try again.") }
        }
        #expect(await unlock.waitForExit() == 1)
        let attempts = try String(contentsOfFile: runner.dataDirectory + "/attempts", encoding: .utf8)
        #expect(attempts.contains("passcodes=3 "))
    }
}
