import FingerlockCLITestSupport
import FingerlockTestSupport
import FingerprintTestSupport
import Foundation
import Testing

/// A desktop user's fingers through the built binary: fingerprints enrolled with fprintd (as GNOME's
/// settings would), a vault that takes them, a touch through Debian's real fprintd on a private bus,
/// and fprintd's set changing behind the vault's back.
@Suite(.timed, .timeLimit(.minutes(3))) struct FprintdEndToEndTests {

    /// Runs `arguments` while `id` touches the reader once fprintd scans.
    static func touching(
        _ runner: BinaryRunner, _ rig: FprintdRig, _ id: String, _ arguments: [String], stdin: String = ""
    ) async throws -> CommandResult {
        async let result = runner.run(arguments, stdin: stdin)
        try await VirtualDeviceSocket(path: rig.virtualDevice).touch(id)
        return try await result
    }

    @Test func theDesktopsFingersUnlockAVaultThatTookThemAndAChangedSetNeedsThePasscode() async throws {
        let rig = try await FprintdRig()
        defer { rig.stop() }
        try await rig.enroll("right-index-finger", scanning: "fl-right")
        let runner = BinaryRunner(extraEnvironment: ["FINGERLOCK_READER": "fprintd", "DBUS_SYSTEM_BUS_ADDRESS": rig.address])
        try await runner.setPasscode()
        let passcode = "\(BinaryRunner.passcode)\n"

        let took = try await runner.run(["enroll", "--passcode-stdin"], stdin: passcode)
        #expect(took.status == 0, "\(took.stderr)")
        #expect(took.stdout.contains("This vault now takes fprintd's fingers: right-index-finger on Virtual device for debugging."))
        let fingers = try await runner.run(["fingers", "--json"])
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(fingers.stdout.utf8)) as? [[String: Any]])
        #expect(rows.count == 1)
        #expect(rows.first?["finger"] as? String == "right-index-finger")
        #expect(rows.first?["reader"] as? String == "fprintd:Virtual device for debugging")
        // fprintd does not say when a finger was enrolled: null, never a made-up date.
        #expect(rows.first?["enrolled"] is NSNull)

        let matched = try await Self.touching(runner, rig, "fl-right", ["verify", "--json"])
        #expect(matched.status == 0, "\(matched.stderr)")
        let match = try #require(try JSONSerialization.jsonObject(with: Data(matched.stdout.utf8)) as? [String: Any])
        #expect(match["finger"] as? String == "right-index-finger")
        let other = try await Self.touching(runner, rig, "someone-else", ["verify"])
        #expect(other.status == 1, "\(other.stderr)")
        #expect(other.stderr.contains("No match."))
        // The notes open with a touch, as with any reader (the trash: titles alone need none while the key is cached).
        let listed = try await Self.touching(runner, rig, "fl-right", ["notes", "trash"])
        #expect(listed.status == 0, "\(listed.stderr)")
        // The vault remembers fprintd: without `--reader fprintd` (and no reader of libfprint's), a
        // touch still goes to fprintd.
        async let remembered = runner.run(["notes", "trash"], environment: ["FINGERLOCK_READER": "auto"])
        try await VirtualDeviceSocket(path: rig.virtualDevice).touch("fl-right")
        let rememberedResult = try await remembered
        #expect(rememberedResult.status == 0, "\(rememberedResult.stderr)")

        // A finger added in the desktop's settings needs only the login password: the vault does
        // not take it until fingerlock's passcode says so.
        try await rig.enroll("left-thumb", scanning: "fl-thumb")
        let changed = try await runner.run(["verify"])
        #expect(changed.status != 0)
        #expect(changed.stderr.contains("fprintd's fingers changed since this vault accepted them (added left-thumb)"), "\(changed.stderr)")
        let accepted = try await runner.run(["unlock", "--passcode-stdin"], stdin: passcode)
        #expect(accepted.status == 0, "\(accepted.stderr)")
        #expect(accepted.stderr.contains("This vault now accepts fprintd's fingers as they are (added left-thumb)"), "\(accepted.stderr)")
        // virtual_device cannot identify: fprintd's `any` checks the first enrolled finger only (the
        // thumb now), and names it.
        let again = try await Self.touching(runner, rig, "fl-thumb", ["verify"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("Match: left-thumb."), "\(again.stdout)")
        let missed = try await Self.touching(runner, rig, "someone-else", ["verify"])
        #expect(missed.status == 1)
        #expect(missed.stderr.contains("No match. fprintd checked only left-thumb: this reader cannot identify"), "\(missed.stderr)")

        // Removing the vault's record of fprintd is not a way back to the templates: it is sealed.
        let stopped = try await runner.run(["forget", "--all", "--passcode-stdin"], stdin: passcode)
        #expect(stopped.status == 0, "\(stopped.stderr)")
        #expect(stopped.stdout.contains("This vault no longer takes fprintd's fingers (left-thumb, right-index-finger"), "\(stopped.stdout)")
        let none = try await runner.run(["verify"])
        #expect(none.status != 0)
    }

    @Test func aFingerEnrolledThroughFprintdIsTakenByTheVaultAndEnrollingItAgainReplacesIt() async throws {
        let rig = try await FprintdRig()
        defer { rig.stop() }
        let runner = BinaryRunner(extraEnvironment: ["FINGERLOCK_READER": "fprintd", "DBUS_SYSTEM_BUS_ADDRESS": rig.address])
        try await runner.setPasscode()
        let passcode = "\(BinaryRunner.passcode)\n"
        let device = VirtualDeviceSocket(path: rig.virtualDevice)

        // A wrong passcode changes nothing at fprintd: it is asked before fprintd enrolls.
        let wrong = try await runner.run(["enroll", "left-thumb", "--passcode-stdin"], stdin: "not the passcode\n")
        #expect(wrong.status == 1, "\(wrong.stderr)")
        let listed = try await runner.run(["readers", "--reader", "fprintd"])
        #expect(listed.stdout.contains("your fingers: none"), "\(listed.stdout)")

        // The passcode, then fprintd asks five touches of virtual_device.
        async let enrolling = runner.run(["enroll", "right-index-finger", "--passcode-stdin"], stdin: passcode)
        for _ in 0..<5 { try await device.send(.scan("fl-first")) }
        let enrolled = try await enrolling
        #expect(enrolled.status == 0, "\(enrolled.stderr)")
        #expect(enrolled.stdout.contains("Enrolled right-index-finger with fprintd."), "\(enrolled.stdout)")
        #expect(enrolled.stdout.contains("This vault now takes fprintd's fingers: right-index-finger on Virtual device for debugging."))
        #expect(try await Self.touching(runner, rig, "fl-first", ["verify"]).status == 0)

        // Enrolled again: it is fprintd's finger (the desktop's login may use it), so not without --replace.
        let unconfirmed = try await runner.run(["enroll", "right-index-finger", "--passcode-stdin"], stdin: passcode)
        #expect(unconfirmed.status == 64, "\(unconfirmed.stderr)")
        #expect(unconfirmed.stderr.contains("--replace replaces it"), "\(unconfirmed.stderr)")
        // With it: fprintd's old print of that finger is gone (deleted first), the new one matches.
        async let again = runner.run(["enroll", "right-index-finger", "--replace", "--passcode-stdin"], stdin: passcode)
        for _ in 0..<5 { try await device.send(.scan("fl-second")) }
        #expect(try await again.status == 0)
        #expect(try await Self.touching(runner, rig, "fl-first", ["verify"]).status == 1)
        #expect(try await Self.touching(runner, rig, "fl-second", ["verify"]).status == 0)
    }

    @Test func whereFprintdMayNotEnrollTheDesktopsSettingsAreNamedAndNothingChanges() async throws {
        let rig = try await FprintdRig(allowed: [FprintdRig.verify])
        defer { rig.stop() }
        let runner = BinaryRunner(extraEnvironment: ["FINGERLOCK_READER": "fprintd", "DBUS_SYSTEM_BUS_ADDRESS": rig.address])
        try await runner.setPasscode()
        let refused = try await runner.run(["enroll", "left-thumb", "--passcode-stdin"], stdin: "\(BinaryRunner.passcode)\n")
        #expect(refused.status == 4, "\(refused.stderr)")
        #expect(refused.stderr.contains("fprintd did not let you enroll here (polkit"), "\(refused.stderr)")
        #expect(refused.stderr.contains("enroll left-thumb in your desktop's settings"), "\(refused.stderr)")
        let fingers = try await runner.run(["fingers"])
        #expect(!fingers.stdout.contains("left-thumb"), "\(fingers.stdout)")

        // A finger fprintd has, replaced where polkit refuses: refused at the delete, so fprintd
        // keeps it, and the message does not say otherwise.
        try rig.allow([FprintdRig.verify, FprintdRig.enroll])
        try await rig.enroll("right-thumb", scanning: "fl-thumb")
        try rig.allow([FprintdRig.verify])
        let kept = try await runner.run(
            ["enroll", "right-thumb", "--replace", "--passcode-stdin"], stdin: "\(BinaryRunner.passcode)\n")
        #expect(kept.status == 4, "\(kept.stderr)")
        #expect(!kept.stderr.contains("no longer has it"), "\(kept.stderr)")
        let listed = try await runner.run(["readers", "--reader", "fprintd"])
        #expect(listed.stdout.contains("your fingers: right-thumb"), "\(listed.stdout)")
    }

    /// doctor's fprintd finding, from `--json`.
    static func fprintdFinding(_ runner: BinaryRunner) async throws -> [String: Any]? {
        let doctor = try await runner.run(["doctor", "--json"])
        let findings = try #require(try JSONSerialization.jsonObject(with: Data(doctor.stdout.utf8)) as? [[String: Any]])
        return findings.first { $0["check"] as? String == "fprintd-fingers" }
    }

    @Test func readersAndDoctorShowFprintdsFingersAndHowToUseThem() async throws {
        let rig = try await FprintdRig()
        defer { rig.stop() }
        try await rig.enroll("right-index-finger", scanning: "fl-right")
        let runner = BinaryRunner(extraEnvironment: ["DBUS_SYSTEM_BUS_ADDRESS": rig.address])
        let readers = try await runner.run(["readers", "--reader", "fprintd"])
        #expect(readers.status == 0, "\(readers.stderr)")
        #expect(readers.stdout.contains("fprintd:Virtual device for debugging"), "\(readers.stdout)")
        #expect(readers.stdout.contains("your fingers: right-index-finger"), "\(readers.stdout)")
        // A vault for hardware readers, as `--reader fprintd` makes one.
        _ = try await InProcessCLI(vaultFixtureFor: runner.environment.merging(["FINGERLOCK_READER": "fprintd"]) { $1 }, home: runner.home)
            .setPasscode(BinaryRunner.passcode)
        let before = try #require(try await Self.fprintdFinding(runner))
        #expect(before["status"] as? String == "warning")
        #expect((before["message"] as? String)?.contains("fprintd has fingers for you") == true, "\(before)")
        #expect((before["fix"] as? String)?.contains("fingerlock enroll --reader fprintd") == true)
        let took = try await runner.run(
            ["enroll", "--reader", "fprintd", "--passcode-stdin"], stdin: "\(BinaryRunner.passcode)\n")
        #expect(took.status == 0, "\(took.stderr)")
        let after = try #require(try await Self.fprintdFinding(runner))
        #expect(after["status"] as? String == "ok", "\(after)")
        // No reader of libfprint's here, and none needed: fprintd keeps the reader for this vault.
        let doctor = try await runner.run(["doctor", "--json"])
        let findings = try #require(try JSONSerialization.jsonObject(with: Data(doctor.stdout.utf8)) as? [[String: Any]])
        let readersFinding = findings.first { $0["check"] as? String == "readers" }
        #expect(readersFinding?["status"] as? String == "ok", "\(String(describing: readersFinding))")
        #expect((after["message"] as? String)?.contains("This vault takes fprintd's fingers") == true, "\(after)")
        // A finger added in the desktop's settings: doctor says the next touch asks the passcode.
        try await rig.enroll("left-thumb", scanning: "fl-thumb")
        let changed = try #require(try await Self.fprintdFinding(runner))
        #expect(changed["status"] as? String == "warning", "\(changed)")
        #expect(
            (changed["message"] as? String)?.contains("fprintd's fingers changed since this vault accepted them (added left-thumb)")
                == true, "\(changed)")
        #expect((changed["fix"] as? String)?.contains("fingerlock unlock") == true, "\(changed)")
    }

    @Test func withoutFprintdOnTheBusTheVaultSaysSoAndThePasscodeStillOpensIt() async throws {
        let rig = try await FprintdRig(withFprintd: false)
        defer { rig.stop() }
        let runner = BinaryRunner(extraEnvironment: ["FINGERLOCK_READER": "fprintd", "DBUS_SYSTEM_BUS_ADDRESS": rig.address])
        try await runner.setPasscode()
        let took = try await runner.run(["enroll", "--passcode-stdin"], stdin: "\(BinaryRunner.passcode)\n")
        #expect(took.status == 4, "\(took.stderr)")
        #expect(took.stderr.contains("fprintd is not installed or not running"), "\(took.stderr)")
    }
}
