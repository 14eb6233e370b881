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
    func aVaultThatTakesFprintdsFingersHasNoneOfItsOwnToEnrollOrForget(_ custody: Custody) async throws {
        let fl = try await ParityInstallation(custody, fprintdsFingers: true)
        fl.touches.queue(.finger(.leftThumb))
        let enrolling = fl.user(typing: Self.passcode)
        let enroll = await #expect(throws: AuthError.self) {
            try await Enrollment(fl.context(enrolling).environment).enroll(
                .leftThumb, username: "parity", confirmReplacing: { _ in true }, updates: { _ in })
        }
        let forgetting = fl.user(typing: Self.passcode)
        let forget = await #expect(throws: AuthError.self) {
            try await Enrollment(fl.context(forgetting).environment).forget(.rightIndex) { _ in true }
        }
        for refused in [enroll, forget] {
            #expect(refused?.code == .invalidInput)
            #expect(refused?.message.contains("This vault takes fprintd's fingers") == true, "\(refused?.message ?? "")")
        }
        // Said before the passcode, and nothing was scanned.
        #expect(enrolling.prompts == 0 && forgetting.prompts == 0)
        #expect(fl.touches.waiting == 1)
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
