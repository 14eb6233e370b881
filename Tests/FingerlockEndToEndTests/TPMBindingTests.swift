import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

/// The passcode bound to a TPM (swtpm, one per test), through the built binary: what the TPM
/// counts, what fingerlock refuses before asking it, another TPM, a cleared or absent one, PCR 7,
/// and the binding turned on and off. Every refusal is one line on stderr that names the recovery
/// key, and changes nothing on disk.
@Suite(.timed, .timeLimit(.minutes(4))) struct TPMBindingTests {
    let tpm: SoftwareTPM
    let runner: BinaryRunner

    init() throws {
        tpm = try SoftwareTPM()
        runner = BinaryRunner(extraEnvironment: ["FINGERLOCK_READER": "simulated", "FINGERLOCK_TPM_TCTI": tpm.tcti])
    }

    static let passcode = BinaryRunner.passcode

    /// `passcode set --tpm` from a script; returns the recovery key.
    func setBoundPasscode(_ extra: [String] = []) async throws -> String {
        let result = try await runner.run(
            ["passcode", "set", "--tpm", "--passcode-stdin"] + extra, stdin: "\(Self.passcode)\n\(Self.passcode)\n")
        #expect(result.status == 0, "passcode set --tpm: \(result.stderr)")
        let line = result.stdout.split(separator: "\n").first { $0.hasPrefix("Recovery key") } ?? ""
        return String(line.split(separator: ": ").last ?? "")
    }

    func unlock(_ passcode: String, environment: [String: String] = [:]) async throws -> BinaryRunner.Result {
        _ = try await runner.run(["lock"], environment: environment)
        return try await runner.run(["unlock", "--passcode-stdin"], environment: environment, stdin: passcode + "\n")
    }

    func tpmStatus(_ environment: [String: String] = [:]) async throws -> [String: Any] {
        let result = try await runner.run(["tpm", "status", "--json"], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] ?? [:]
    }

    func vaultBytes() throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: runner.dataDirectory + "/vault.sqlite"))
    }

    func isOneLineNamingTheRecoveryKey(_ result: BinaryRunner.Result) -> Bool {
        let lines = result.stderr.split(separator: "\n")
        return lines.count == 1 && result.stderr.contains("recovery key") && result.stderr.contains("passcode reset")
    }

    @Test func theRightPasscodeOpensAndEachWrongOneIsCountedByTheTPMItself() async throws {
        defer { tpm.stop() }
        try tpm.setDictionaryParameters(maximumTries: 10, interval: 600, recovery: 600)
        _ = try await setBoundPasscode()
        #expect(try await tpmStatus()["bound"] as? Bool == true)
        #expect(try await unlock(Self.passcode).status == 0)
        #expect(try tpm.lockoutCounter() == 0)
        for expected in 1...3 {
            let wrong = try await unlock("not the passcode")
            #expect(wrong.status == 1)
            #expect(wrong.stderr.contains("the TPM counted it: \(expected) of the 10"), "\(wrong.stderr)")
            #expect(try tpm.lockoutCounter() == expected)
        }
        #expect(try await unlock(Self.passcode).status == 0)
        let status = try await tpmStatus()
        #expect(status["failedTries"] as? Int == 3 && status["maximumTries"] as? Int == 10)
        #expect(try await runner.run(["notes", "list", "--passcode-stdin"], stdin: Self.passcode + "\n").status == 0)
    }

    @Test func fingerlocksOwnDelaysComeBeforeTheTPMIsAsked() async throws {
        defer { tpm.stop() }
        try tpm.setDictionaryParameters(maximumTries: 32, interval: 600, recovery: 600)
        _ = try await setBoundPasscode()
        for _ in 1...5 { #expect(try await unlock("not the passcode").status == 1) }
        #expect(try tpm.lockoutCounter() == 5)
        // fingerlock's ladder (a minute after the fifth) refuses before the TPM is asked.
        let delayed = try await unlock(Self.passcode)
        #expect(delayed.status == 3, "\(delayed.stderr)")
        #expect(try tpm.lockoutCounter() == 5)
    }

    @Test func fingerlockNeverRisksTheTPMsLastAllowedFailure() async throws {
        defer { tpm.stop() }
        // swtpm's factory defaults: 3 failures, one forgotten every 1000 s.
        _ = try await setBoundPasscode()
        for _ in 1...2 { #expect(try await unlock("not the passcode").status == 1) }
        let before = try vaultBytes()
        let refused = try await unlock(Self.passcode)
        #expect(refused.status == 3)
        #expect(refused.stderr.contains("will not risk the last one") && refused.stderr.contains("17 min"), "\(refused.stderr)")
        #expect(isOneLineNamingTheRecoveryKey(refused), "\(refused.stderr)")
        #expect(try tpm.lockoutCounter() == 2)
        #expect(try !tpm.inLockout())
        #expect(try vaultBytes() == before)
    }

    @Test func atATerminalThePasscodeIsNotAskedOnceTheTPMWouldNotBeAsked() async throws {
        defer { tpm.stop() }
        _ = try await setBoundPasscode()
        _ = try await runner.run(["lock"])
        let terminal = try PseudoTerminalSession(
            arguments: ["unlock"], environment: runner.environment)
        await terminal.expect("Passcode")
        terminal.send("not the passcode\r")
        await terminal.expect("1 of the 3")
        terminal.send("still not it\r")
        // Two failures of three: the next prompt would be refused whatever is typed, so there is none.
        await terminal.expect("will not risk the last one")
        #expect(await terminal.waitForExit() == 3)
        #expect(terminal.output.components(separatedBy: "Passcode").count - 1 == 2, "\(terminal.output)")
        let change = try await runner.run(["passcode", "change", "--passcode-stdin"], stdin: "\(Self.passcode)\nx new one 1\nx new one 1\n")
        #expect(change.status == 3 && change.stderr.contains("will not risk"), "\(change.stderr)")
        #expect(try tpm.lockoutCounter() == 2)
    }

    @Test func aTPMInLockoutIsSaidWithHowLongAndTheRecoveryKeyStillOpens() async throws {
        defer { tpm.stop() }
        let recovery = try await setBoundPasscode()
        try tpm.setDictionaryParameters(maximumTries: 3, interval: 600, recovery: 600)
        // Another program's failures (disk unlock, tpm2-tools) lock the TPM out.
        for _ in 1...3 { try tpm.failAnAuthorization() }
        #expect(try tpm.inLockout())
        let refused = try await unlock(Self.passcode)
        #expect(refused.status == 3)
        // Two intervals: out of lockout after one, and one more before a failure could not lock it again.
        #expect(refused.stderr.contains("dictionary-attack lockout") && refused.stderr.contains("20 min"), "\(refused.stderr)")
        #expect(try tpm.lockoutCounter() == 3)
        #expect(isOneLineNamingTheRecoveryKey(refused), "\(refused.stderr)")
        let reset = try await runner.run(
            ["passcode", "reset", "--passcode-stdin"], stdin: "\(recovery)\nafter the reset\nafter the reset\n")
        // The TPM's lockout does not stop sealing (its storage parent is noDA): the reset binds.
        #expect(reset.status == 0, "\(reset.stderr)")
        #expect(reset.stderr.contains("bound to this machine's TPM"), "\(reset.stderr)")
    }

    @Test func anotherTPMOpensNothingAndTheRecoveryKeyBindsTheNewPasscodeToIt() async throws {
        defer { tpm.stop() }
        let recovery = try await setBoundPasscode()
        let other = try SoftwareTPM()
        defer { other.stop() }
        let elsewhere = ["FINGERLOCK_TPM_TCTI": other.tcti]
        let before = try vaultBytes()
        let refused = try await unlock(Self.passcode, environment: elsewhere)
        #expect(refused.status == 4, "\(refused.stderr)")
        #expect(refused.stderr.contains("sealed by another TPM, or this TPM was cleared"), "\(refused.stderr)")
        #expect(isOneLineNamingTheRecoveryKey(refused), "\(refused.stderr)")
        #expect(try other.lockoutCounter() == 0)
        #expect(try vaultBytes() == before)
        let reset = try await runner.run(
            ["passcode", "reset", "--passcode-stdin"], environment: elsewhere, stdin: "\(recovery)\nnew machine 1\nnew machine 1\n")
        #expect(reset.status == 0, "\(reset.stderr)")
        #expect(reset.stderr.contains("bound to this machine's TPM"), "\(reset.stderr)")
        #expect(try await unlock("new machine 1", environment: elsewhere).status == 0)
        // Bound to the new TPM now: the first one opens nothing.
        #expect(try await unlock("new machine 1").status == 4)
    }

    @Test func aClearedAbsentOrMistypedTPMIsOneLineNamingTheRecoveryKey() async throws {
        defer { tpm.stop() }
        let recovery = try await setBoundPasscode()
        let before = try vaultBytes()
        for (environment, says) in [
            (["FINGERLOCK_TPM_TCTI": "device:/dev/tpmrm-absent"], "no TPM at /dev/tpmrm-absent"),
            (["FINGERLOCK_TPM_TCTI": "swtpm:path=/nonexistent/sock"], "No TPM answers at swtpm:path=/nonexistent/sock"),
            (["FINGERLOCK_TPM_TCTI": "nosuchtcti:whatever"], "No TPM answers at nosuchtcti:whatever"),
        ] {
            let refused = try await unlock(Self.passcode, environment: environment)
            #expect(refused.status == 4, "\(environment): \(refused.stderr)")
            #expect(refused.stderr.contains(says), "\(refused.stderr)")
            #expect(isOneLineNamingTheRecoveryKey(refused), "\(refused.stderr)")
        }
        try tpm.clear()
        let cleared = try await unlock(Self.passcode)
        #expect(cleared.status == 4)
        #expect(cleared.stderr.contains("this TPM was cleared"), "\(cleared.stderr)")
        #expect(isOneLineNamingTheRecoveryKey(cleared), "\(cleared.stderr)")
        #expect(try vaultBytes() == before)
        // Nothing lost: the recovery key opens the vault and the new passcode is bound to the TPM as it is now.
        let reset = try await runner.run(
            ["passcode", "reset", "--passcode-stdin"], stdin: "\(recovery)\nafter a clear 1\nafter a clear 1\n")
        #expect(reset.status == 0, "\(reset.stderr)")
        #expect(try await unlock("after a clear 1").status == 0)
    }

    @Test func withoutATPMTheResetLeavesThePasscodeUnboundAndSaysHowToBindIt() async throws {
        defer { tpm.stop() }
        let recovery = try await setBoundPasscode()
        let absent = ["FINGERLOCK_TPM_TCTI": "device:/dev/tpmrm-absent"]
        let reset = try await runner.run(
            ["passcode", "reset", "--passcode-stdin"], environment: absent, stdin: "\(recovery)\nno tpm here 1\nno tpm here 1\n")
        #expect(reset.status == 0, "\(reset.stderr)")
        #expect(reset.stderr.contains("not bound to a TPM") && reset.stderr.contains("fingerlock tpm enable"), "\(reset.stderr)")
        #expect(try await unlock("no tpm here 1", environment: absent).status == 0)
        #expect(try await tpmStatus(absent)["bound"] as? Bool == false)
        // `tpm status` advises `tpm enable` only where a TPM answers.
        let none = try await runner.run(["tpm", "status"], environment: absent)
        #expect(none.stdout.hasPrefix("tpm: the passcode is not bound to a TPM (none answers here)\n"), "\(none.stdout)")
        #expect(!none.stdout.contains("tpm enable"))
        let here = try await runner.run(["tpm", "status"])
        #expect(here.stdout.hasPrefix("tpm: the passcode is not bound to a TPM (`fingerlock tpm enable` binds it)\n"), "\(here.stdout)")
    }

    @Test func aPCR7BindingStopsThePasscodeWhenPCR7ChangesWithAClearMessage() async throws {
        defer { tpm.stop() }
        _ = try await setBoundPasscode(["--pcr7"])
        #expect(try await tpmStatus()["pcr7"] as? Bool == true)
        #expect(try await unlock(Self.passcode).status == 0)
        try tpm.extendPCR7()
        let refused = try await unlock(Self.passcode)
        #expect(refused.status == 4)
        #expect(refused.stderr.contains("PCR 7"), "\(refused.stderr)")
        #expect(isOneLineNamingTheRecoveryKey(refused), "\(refused.stderr)")
    }

    @Test func enableAndDisableKeepThePasscodeAndChangesAndRekeysKeepTheBinding() async throws {
        defer { tpm.stop() }
        try tpm.setDictionaryParameters(maximumTries: 10, interval: 600, recovery: 600)
        try await runner.setPasscode()
        #expect(try await tpmStatus()["bound"] as? Bool == false)
        let passcodeFile = runner.home + "/passcode"
        try (Self.passcode + "\n").write(toFile: passcodeFile, atomically: true, encoding: .utf8)
        let added = try await runner.run(
            ["notes", "add", "--title", "kept", "--passcode-fd", "3"], stdin: "body\n", descriptorsFromFiles: [3: passcodeFile])
        #expect(added.status == 0, "\(added.stderr)")
        let enable = try await runner.run(["tpm", "enable", "--pcr7", "--passcode-stdin"], stdin: Self.passcode + "\n")
        #expect(enable.status == 0, "\(enable.stderr)")
        #expect(enable.stdout.contains("now bound to the TPM and PCR 7"))
        // The vault key is the same: copies from before still open with the passcode alone, and it says so.
        #expect(enable.stderr.contains("`fingerlock rekey`"), "\(enable.stderr)")
        let withoutPCR = try await runner.run(["tpm", "enable", "--passcode-stdin"], stdin: Self.passcode + "\n")
        #expect(withoutPCR.stdout.contains("now bound to the TPM (no longer to PCR 7)"), "\(withoutPCR.stdout)")
        #expect(!withoutPCR.stderr.contains("rekey"))
        #expect(try await tpmStatus()["bound"] as? Bool == true)
        let again = try await runner.run(["tpm", "enable", "--passcode-stdin"], stdin: Self.passcode + "\n")
        #expect(again.status == 0 && again.stdout.contains("already bound"), "\(again.stdout)")
        // Without the TPM the bound passcode opens nothing.
        #expect(try await unlock(Self.passcode, environment: ["FINGERLOCK_TPM_TCTI": "device:/dev/tpmrm-absent"]).status == 4)
        let change = try await runner.run(
            ["passcode", "change", "--passcode-stdin"], stdin: "\(Self.passcode)\nchanged one 1\nchanged one 1\n")
        #expect(change.status == 0, "\(change.stderr)")
        #expect(try await tpmStatus()["bound"] as? Bool == true)
        let rekey = try await runner.run(["rekey", "--passcode-stdin"], stdin: "changed one 1\n")
        #expect(rekey.status == 0, "\(rekey.stderr)")
        #expect(try await tpmStatus()["bound"] as? Bool == true)
        #expect(try await unlock("changed one 1").status == 0)
        let disable = try await runner.run(["tpm", "disable", "--passcode-stdin"], stdin: "changed one 1\n")
        #expect(disable.status == 0, "\(disable.stderr)")
        #expect(try await tpmStatus()["bound"] as? Bool == false)
        #expect(try await unlock("changed one 1", environment: ["FINGERLOCK_TPM_TCTI": "device:/dev/tpmrm-absent"]).status == 0)
        let show = try await runner.run(["notes", "show", "kept", "--passcode-stdin"], stdin: "changed one 1\n")
        #expect(show.stdout.contains("body"))
    }

    @Test func aTPMThatLocksOutAtItsFirstFailureIsNeverAskedAndNotBoundTo() async throws {
        defer { tpm.stop() }
        _ = try await setBoundPasscode()
        try tpm.setDictionaryParameters(maximumTries: 1, interval: 600, recovery: 600)
        let refused = try await unlock("not the passcode")
        #expect(refused.status == 3 && refused.stderr.contains("will not risk the last one"), "\(refused.stderr)")
        #expect(try tpm.lockoutCounter() == 0)
        #expect(try !tpm.inLockout())
        #expect(try await runner.run(["tpm", "disable", "--passcode-stdin"], stdin: Self.passcode + "\n").status == 3)
        let other = BinaryRunner(extraEnvironment: ["FINGERLOCK_READER": "simulated", "FINGERLOCK_TPM_TCTI": tpm.tcti])
        let set = try await other.run(["passcode", "set", "--tpm", "--passcode-stdin"], stdin: "\(Self.passcode)\n\(Self.passcode)\n")
        #expect(set.status == 4 && set.stderr.contains("locks out at its first failed authorization"), "\(set.stderr)")
        #expect(!FileManager.default.fileExists(atPath: other.dataDirectory + "/vault.sqlite"))
    }

    @Test func aTPMWithNoRoomLeftIsTriedAgainLaterAndNeverUnbindsTheVault() async throws {
        defer { tpm.stop() }
        let recovery = try await setBoundPasscode()
        try tpm.fillObjectMemory()
        let refused = try await unlock(Self.passcode)
        #expect(refused.status == 3, "\(refused.stderr)")
        #expect(refused.stderr.contains("no room left") && refused.stderr.contains("tpm2_flushcontext"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("recovery key"), "\(refused.stderr)")
        // A reset with the recovery key then binds nothing and changes nothing.
        let reset = try await runner.run(
            ["passcode", "reset", "--passcode-stdin"], stdin: "\(recovery)\nafter a full 1\nafter a full 1\n")
        #expect(reset.status == 3, "\(reset.stderr)")
        try tpm.flushEverything()
        #expect(try await tpmStatus()["bound"] as? Bool == true)
        #expect(try await unlock(Self.passcode).status == 0)
    }

    @Test func tss2TracingInTheEnvironmentShowsNothingAndAnEmptyTCTIMeansTheDefault() async throws {
        defer { tpm.stop() }
        _ = try await setBoundPasscode()
        _ = try await runner.run(["lock"])
        let traced = try await runner.run(
            ["unlock", "--passcode-stdin"], environment: ["TSS2_LOG": "all+trace"], stdin: "not the passcode\n")
        #expect(traced.status == 1)
        #expect(traced.stderr.split(separator: "\n").count == 1 && !traced.stderr.contains("esys"), "\(traced.stderr)")
        let empty = try await unlock(Self.passcode, environment: ["FINGERLOCK_TPM_TCTI": ""])
        #expect(empty.status == 4 && empty.stderr.contains("/dev/tpmrm0"), "\(empty.stderr)")
    }

    @Test func statusAndDoctorSayWhenThisTPMCannotOpenTheSlot() async throws {
        defer { tpm.stop() }
        _ = try await setBoundPasscode(["--pcr7"])
        #expect(try await tpmStatus()["problem"] is NSNull)
        try tpm.extendPCR7()
        let changed = try await tpmStatus()
        #expect((changed["problem"] as? String)?.contains("PCR 7") == true, "\(changed)")
        let other = try SoftwareTPM()
        defer { other.stop() }
        let elsewhere = try await tpmStatus(["FINGERLOCK_TPM_TCTI": other.tcti])
        #expect((elsewhere["problem"] as? String)?.contains("another TPM") == true, "\(elsewhere)")
        let doctor = try await runner.run(["doctor", "--json"], environment: ["FINGERLOCK_TPM_TCTI": other.tcti])
        let findings = try JSONSerialization.jsonObject(with: Data(doctor.stdout.utf8)) as? [[String: Any]] ?? []
        let finding = findings.first { $0["check"] as? String == "tpm" }
        #expect(finding?["status"] as? String == "error", "\(String(describing: finding))")
        #expect(try other.lockoutCounter() == 0)
    }

    @Test func statusAndDoctorSayTheBindingAndTheTPMsState() async throws {
        defer { tpm.stop() }
        _ = try await setBoundPasscode()
        let status = try await runner.run(["status", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
        let tpmObject = object?["tpm"] as? [String: Any]
        #expect(tpmObject?["bound"] as? Bool == true && tpmObject?["maximumTries"] as? Int == 3)
        #expect(tpmObject?["lockoutPasswordSet"] as? Bool == false)
        let text = try await runner.run(["status"])
        #expect(text.stdout.contains("tpm: the passcode is bound to the TPM at \(tpm.tcti)"))
        let doctor = try await runner.run(["doctor", "--json"])
        #expect(doctor.stdout.contains("\"check\" : \"tpm\""), "\(doctor.stdout)")
        #expect(doctor.stdout.contains("The passcode is bound to the TPM at"), "\(doctor.stdout)")
    }
}

/// `tpm enable`, `tpm disable`, `passcode change` and `rekey` killed (SIGKILL) at points spread
/// over their run: afterwards the old or the new passcode opens the vault, never neither.
@Suite(.timed, .timeLimit(.minutes(6))) struct TPMBindingKillTests {
    let tpm: SoftwareTPM
    let runner: BinaryRunner

    init() throws {
        tpm = try SoftwareTPM()
        runner = BinaryRunner(extraEnvironment: ["FINGERLOCK_READER": "simulated", "FINGERLOCK_TPM_TCTI": tpm.tcti])
    }

    /// Which of `passcodes` opens the vault now (nil: none).
    func opening(_ passcodes: [String]) async throws -> String? {
        for passcode in passcodes {
            _ = try await runner.run(["lock"])
            if try await runner.run(["unlock", "--passcode-stdin"], stdin: passcode + "\n").status == 0 { return passcode }
        }
        return nil
    }

    /// Runs `arguments` to the end once to time it, then kills it at fractions of that time; after
    /// each kill one of `passcodes` must open the vault. `reset` puts the vault back as it was
    /// before the next kill (with the passcode that opens it now).
    func killAtEveryPoint(
        _ arguments: [String], stdin: @escaping (String) -> String, passcodes: [String],
        reset: (String) async throws -> Void
    ) async throws {
        let started = ContinuousClock.now
        let whole = try await runner.run(arguments, stdin: stdin(passcodes[0]))
        #expect(whole.status == 0, "\(arguments): \(whole.stderr)")
        let duration = ContinuousClock.now - started
        var opener = try #require(try await opening(passcodes))
        try await reset(opener)
        for fraction in [0.15, 0.35, 0.55, 0.7, 0.8, 0.9, 0.97] {
            // The passcode that opened it last is tried first: a wrong one costs a calibrated
            // derivation and counts as a failed attempt.
            opener = try #require(try await opening([opener] + passcodes.filter { $0 != opener }), "before the kill at \(fraction)")
            let process = try runner.start(arguments, stdin: stdin(opener))
            try await Task.sleep(for: duration * fraction)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            // What the kernel's resource manager (/dev/tpmrm0) does when a process dies: its loaded
            // objects and sessions go. swtpm has none, and would run out of room after a few kills.
            try tpm.flushEverything()
            let after = try await opening([opener] + passcodes.filter { $0 != opener })
            #expect(after != nil, "\(arguments) killed at \(fraction) of \(duration): no passcode opens the vault")
            if let after {
                opener = after
                try await reset(after)
            }
        }
        // Nothing is left behind by the kills: the same command still runs to the end.
        let opener2 = try #require(try await opening(passcodes))
        #expect(try await runner.run(arguments, stdin: stdin(opener2)).status == 0)
    }

    // Each command's kills are a test of their own (with a TPM of its own), so the four run side by
    // side: together they were two tests of a minute and more each, the last to end in the suite.

    @Test func enablingKilledAnywhereLeavesThePasscodeOpeningTheVault() async throws {
        defer { tpm.stop() }
        try tpm.setDictionaryParameters(maximumTries: 100, interval: 600, recovery: 600)
        try await runner.setPasscode()
        let passcode = BinaryRunner.passcode
        try await killAtEveryPoint(["tpm", "enable", "--passcode-stdin"], stdin: { $0 + "\n" }, passcodes: [passcode]) { _ in
            _ = try await runner.run(["tpm", "disable", "--passcode-stdin"], stdin: passcode + "\n")
        }
    }

    @Test func disablingKilledAnywhereLeavesThePasscodeOpeningTheVault() async throws {
        defer { tpm.stop() }
        try tpm.setDictionaryParameters(maximumTries: 100, interval: 600, recovery: 600)
        try await runner.setPasscode()
        let passcode = BinaryRunner.passcode
        #expect(try await runner.run(["tpm", "enable", "--passcode-stdin"], stdin: passcode + "\n").status == 0)
        try await killAtEveryPoint(["tpm", "disable", "--passcode-stdin"], stdin: { $0 + "\n" }, passcodes: [passcode]) { _ in
            _ = try await runner.run(["tpm", "enable", "--passcode-stdin"], stdin: passcode + "\n")
        }
    }

    @Test func aPasscodeChangeOfABoundVaultKilledAnywhereLeavesTheOldOrNewPasscode() async throws {
        defer { tpm.stop() }
        try tpm.setDictionaryParameters(maximumTries: 100, interval: 600, recovery: 600)
        try await runner.setPasscode()
        let old = BinaryRunner.passcode
        let new = "a new passcode 7"
        #expect(try await runner.run(["tpm", "enable", "--passcode-stdin"], stdin: old + "\n").status == 0)
        try await killAtEveryPoint(
            ["passcode", "change", "--passcode-stdin"], stdin: { "\($0)\n\($0 == old ? new : old)\n\($0 == old ? new : old)\n" },
            passcodes: [old, new]
        ) { _ in }
        let status = try await runner.run(["tpm", "status", "--json"])
        #expect(status.stdout.contains("\"bound\" : true"), "\(status.stdout)")
    }

    @Test func aRekeyOfABoundVaultKilledAnywhereLeavesItsPasscode() async throws {
        defer { tpm.stop() }
        try tpm.setDictionaryParameters(maximumTries: 100, interval: 600, recovery: 600)
        try await runner.setPasscode()
        let passcode = BinaryRunner.passcode
        #expect(try await runner.run(["tpm", "enable", "--passcode-stdin"], stdin: passcode + "\n").status == 0)
        try await killAtEveryPoint(["rekey", "--passcode-stdin"], stdin: { $0 + "\n" }, passcodes: [passcode]) { _ in }
        let status = try await runner.run(["tpm", "status", "--json"])
        #expect(status.stdout.contains("\"bound\" : true"), "\(status.stdout)")
    }
}
