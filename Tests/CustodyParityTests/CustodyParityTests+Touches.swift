import Auth
import AuthCore
import FingerlockTestSupport
import Fingerprint
import Foundation
import Testing

/// The touch rules the review found without a scenario: the reader kind, `max-tries`, what a lockout
/// leaves, a print the reader lost, a scan cancelled after the finger was read. One body each, both
/// custodies.
extension CustodyParityTests {
    @Test(arguments: Custody.allCases)
    func aHardwareVaultRefusesATestReaderBeforeAnyScan(_ custody: Custody) async throws {
        let fl = try await ParityInstallation(custody, hardwareVault: true)
        fl.touches.queue(.finger(.rightIndex))
        let error = await fl.verifyError()
        #expect(error?.code == .biometryNotAvailable, "\(String(describing: error))")
        #expect(error?.message.contains("simulated:0") == true, "\(error?.message ?? "")")
        #expect(fl.touches.waiting == 1)
        #expect(try fl.status.failedTouches == 0)
        await fl.stop()
    }

    /// With the vault's templates, and with fprintd's fingers: the same rule.
    @Test(arguments: Custody.allCases, [false, true])
    func theTriesRunOutAtMaxTries(_ custody: Custody, fprintdsFingers: Bool) async throws {
        let fl = try await ParityInstallation(custody, fprintdsFingers: fprintdsFingers)
        _ = try await SettingsEditor(fl.context(fl.user(typing: Self.passcode)).environment).changeSetting(.maxTries, to: "2")
        fl.touches.queue(.unknown, .unknown, .finger(.rightIndex))
        // Nothing to type: the unlock ends with the tries' own message.
        let (error, user) = await fl.openNotesError()
        #expect(user.notices.first == "No match. Try again.")
        #expect(user.notices.contains("No match after 2 tries."), "\(user.notices)")
        #expect(error?.code == .passcodeRequired, "\(String(describing: error))")
        #expect(try fl.status.failedTouches == 2)
        #expect(fl.touches.waiting == 1)
        await fl.stop()
    }

    /// With the vault's templates, and with fprintd's fingers: the same rule.
    @Test(arguments: Custody.allCases, [false, true])
    func aLockoutLeavesNoKeyToRelease(_ custody: Custody, fprintdsFingers: Bool) async throws {
        let fl = try await ParityInstallation(custody, fprintdsFingers: fprintdsFingers)
        for _ in 1...TouchLedger.lockoutThreshold {
            fl.touches.queue(.unknown)
            _ = await fl.verify()
        }
        let status = try fl.status
        #expect(status.lockedOut)
        // One decision in both modes: the lockout forgot the key, so nothing is unlocked.
        #expect(!status.unlocked)
        // The right finger is not scanned; the passcode opens the notes and ends the lockout.
        fl.touches.queue(.finger(.rightIndex))
        #expect(try await fl.openNotes(typing: Self.passcode).prompts == 1)
        #expect(fl.touches.waiting == 1)
        #expect(try fl.status.unlocked && !fl.status.lockedOut)
        await fl.stop()
    }

    @Test(arguments: Custody.allCases)
    func aPrintTheReaderLostIsNoFailedTouchAndSaysHowToGetItBack(_ custody: Custody) async throws {
        let fl = try await ParityInstallation(custody)
        fl.touches.queue(.notStored)
        let error = await fl.verifyError()
        #expect(error?.code == .biometryNotAvailable)
        #expect(error?.unavailability == .printNotStored)
        #expect(error?.message.hasPrefix("The right-index-finger print is no longer stored on simulated:0") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("fingerlock enroll right-index-finger") == true)
        #expect(try fl.status.failedTouches == 0)
        await fl.stop()
    }

    @Test(arguments: Custody.allCases)
    func aScanCancelledAfterTheFingerWasReadCountsAndOneCancelledBeforeDoesNot(_ custody: Custody) async throws {
        let fl = try await ParityInstallation(custody)
        // Before any finger: the scan only waited.
        fl.touches.queue(.hold)
        let waiting = fl.verifyInTask()
        while fl.touches.waiting > 0 { try await Task.sleep(for: .milliseconds(5)) }
        try await Task.sleep(for: .milliseconds(100))
        waiting.cancel()
        _ = try? await waiting.value
        #expect(try fl.status.failedTouches == 0)
        // After the finger was read: counted at once, and the cancel does not take it back.
        fl.touches.queue(.readThenHold)
        let reading = fl.verifyInTask()
        let deadline = ContinuousClock.now + .seconds(30)
        while try fl.status.failedTouches == 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        reading.cancel()
        _ = try? await reading.value
        #expect(try fl.status.failedTouches == 1)
        await fl.stop()
    }
}
