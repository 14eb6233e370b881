import Auth
import AuthCore
import FingerlockTestSupport
import Fingerprint
import Foundation
import Testing

/// The touch rules again with fprintd's fingers behind the finger seam (fprintd played by the
/// simulated reader, ``SimulatedFprintd``): the same tries, counting, lockout and cancellation in
/// both custodies, and fprintd's own rule, the accepted set, the same in both.
extension CustodyParityTests {
    @Test(arguments: Custody.allCases)
    func fprintdsFingerUnlocksAndAnotherCountsAsAFailedTouch(_ custody: Custody) async throws {
        let fl = try await ParityInstallation(custody, fprintdsFingers: true)
        fl.touches.queue(.unknown)
        #expect(await fl.verify() == .authenticationFailed)
        #expect(try fl.status.failedTouches == 1)
        fl.touches.queue(.finger(.rightIndex))
        #expect(await fl.verify() == nil)
        #expect(try fl.status.failedTouches == 0)
        await fl.stop()
    }

    @Test(arguments: Custody.allCases)
    func withFprintdTheTriesRunOutAtMaxTries(_ custody: Custody) async throws {
        let fl = try await ParityInstallation(custody, fprintdsFingers: true)
        _ = try await SettingsEditor(fl.context(fl.user(typing: Self.passcode)).environment).changeSetting(.maxTries, to: "2")
        fl.touches.queue(.unknown, .unknown, .finger(.rightIndex))
        let (error, user) = await fl.openNotesError()
        #expect(user.notices.first == "No match. Try again.")
        #expect(user.notices.contains("No match after 2 tries."), "\(user.notices)")
        #expect(error?.code == .passcodeRequired, "\(String(describing: error))")
        #expect(try fl.status.failedTouches == 2)
        #expect(fl.touches.waiting == 1)
        await fl.stop()
    }

    @Test(arguments: Custody.allCases)
    func withFprintdALockoutLeavesNoKeyToRelease(_ custody: Custody) async throws {
        let fl = try await ParityInstallation(custody, fprintdsFingers: true)
        for _ in 1...TouchLedger.lockoutThreshold {
            fl.touches.queue(.unknown)
            _ = await fl.verify()
        }
        let status = try fl.status
        #expect(status.lockedOut && !status.unlocked)
        fl.touches.queue(.finger(.rightIndex))
        #expect(try await fl.openNotes(typing: Self.passcode).prompts == 1)
        #expect(fl.touches.waiting == 1)
        await fl.stop()
    }

    @Test(arguments: Custody.allCases)
    func aFingerAddedAtFprintdUnlocksNothingUntilThePasscodeAcceptsIt(_ custody: Custody) async throws {
        let fl = try await ParityInstallation(custody, fprintdsFingers: true)
        let fprintd = try #require(fl.fprintd)
        // Added in the desktop's settings, with the login password alone.
        fl.touches.queue(.finger(.leftThumb))
        try await fprintd.add(.leftThumb)
        fl.touches.queue(.finger(.leftThumb))
        let refused = await fl.verifyError()
        #expect(refused?.unavailability == .fingersChanged, "\(String(describing: refused))")
        #expect(refused?.message.contains("added left-thumb") == true, "\(refused?.message ?? "")")
        // Nothing was scanned or counted.
        #expect(fl.touches.waiting == 1)
        #expect(try fl.status.failedTouches == 0)
        // The passcode opens the notes and accepts the new set, saying so; the thumb unlocks then.
        let user = try await fl.openNotes(typing: Self.passcode)
        #expect(user.notices.contains { $0.contains("now accepts fprintd's fingers as they are (added left-thumb)") }, "\(user.notices)")
        #expect(await fl.verify(.leftThumb) == nil)
        await fl.stop()
    }

    @Test(arguments: Custody.allCases)
    func withFprintdAScanCancelledBeforeAFingerDoesNotCount(_ custody: Custody) async throws {
        let fl = try await ParityInstallation(custody, fprintdsFingers: true)
        fl.touches.queue(.hold)
        let waiting = fl.verifyInTask()
        while fl.touches.waiting > 0 { try await Task.sleep(for: .milliseconds(5)) }
        try await Task.sleep(for: .milliseconds(100))
        waiting.cancel()
        _ = try? await waiting.value
        #expect(try fl.status.failedTouches == 0)
        await fl.stop()
    }
}
