import Auth
import AuthCore
import FingerlockTestSupport
import Fingerprint
import Foundation
import Testing

/// The same scenarios against both custodies: user mode (the CLI keeps the key, the counters and the
/// reader) and system mode (an in-process fingerlockd over its socket keeps them). Each rule is
/// written once in AuthCore and hosted by both; these scenarios fail if a host drifts from it.
@Suite(.timed, .timeLimit(.minutes(2))) struct CustodyParityTests {
    static let passcode = ParityInstallation.passcode

    @Test(arguments: Custody.allCases)
    func aMatchingTouchOpensTheNotesAndAWrongFingerIsCounted(_ custody: Custody) async throws {
        let fl = try await ParityInstallation(custody)
        fl.touches.queue(.unknown, .finger(.rightIndex))
        let user = try await fl.openNotes()
        #expect(user.prompts == 0)
        #expect(user.notices == ["No match. Try again."])
        #expect(fl.touches.waiting == 0)
        // The match cleared the count the wrong finger made.
        #expect(try fl.status.failedTouches == 0)
        await fl.stop()
    }

    @Test(arguments: Custody.allCases)
    func fiveFailedTouchesInARowLockFingerprintsOutUntilThePasscode(_ custody: Custody) async throws {
        let fl = try await ParityInstallation(custody)
        for failures in 1...TouchLedger.lockoutThreshold {
            fl.touches.queue(.unknown)
            #expect(await fl.verify() == .authenticationFailed)
            #expect(try fl.status.failedTouches == failures)
            #expect(try fl.status.lockedOut == (failures == TouchLedger.lockoutThreshold))
        }
        // Locked out: the right finger is not even scanned, and `notes` asks for the passcode.
        fl.touches.queue(.finger(.rightIndex))
        let user = try await fl.openNotes(typing: Self.passcode)
        #expect(user.prompts == 1)
        #expect(fl.touches.waiting == 1)
        // The passcode ended the lockout: the waiting right finger now opens the notes.
        #expect(try fl.status.failedTouches == 0 && !fl.status.lockedOut)
        #expect(try await fl.openNotes().prompts == 0)
        #expect(fl.touches.waiting == 0)
        await fl.stop()
    }

    /// The remote-session check runs beside the header read now; its refusal must still come before
    /// any scan, in both modes.
    @Test(arguments: Custody.allCases)
    func aRemoteSessionRefusesVerifyBeforeAnyTouch(_ custody: Custody) async throws {
        let fl = try await ParityInstallation(custody)
        fl.touches.queue(.finger(.rightIndex))
        let why = "This is a remote (SSH) session (parity), so the fingerprint is not used."
        let error = await fl.verifyError(remoteSession: why)
        #expect(error?.code == .biometryNotAvailable)
        #expect(error?.unavailability == .remoteSession)
        #expect(error?.message == why)
        #expect(fl.touches.waiting == 1)
        #expect(try fl.status.failedTouches == 0)
        // A local session then scans the finger that waited.
        #expect(await fl.verify() == nil)
        #expect(fl.touches.waiting == 0)
        await fl.stop()
    }

    @Test(arguments: Custody.allCases)
    func retryHintsAndTimeoutsAreNoFailedTouches(_ custody: Custody) async throws {
        let fl = try await ParityInstallation(custody)
        fl.touches.queue(.retry(.centerFinger), .finger(.rightIndex))
        #expect(try await fl.openNotes().notices == [RetryReason.centerFinger.hint])
        // Nothing queued: the scan times out, which counts nothing either.
        #expect(await fl.verify() == .timeout)
        #expect(try fl.status.failedTouches == 0)
        await fl.stop()
    }

    @Test(arguments: Custody.allCases)
    func wrongPasscodesAreCountedAndTheFifthStartsTheDelays(_ custody: Custody) async throws {
        let fl = try await ParityInstallation(custody)
        for failures in 1...4 {
            #expect(await fl.passcodeUnlock("wrong \(failures)") == .authenticationFailed)
            #expect(try fl.status.failedPasscodes == failures)
            #expect(try fl.status.passcodeDelayLeft == nil)
        }
        #expect(await fl.passcodeUnlock("wrong 5") == .authenticationFailed)
        #expect(try fl.status.passcodeDelayLeft == .seconds(60))
        // During the delay even the right passcode is refused, and not counted.
        fl.clock.advance(30)
        #expect(await fl.passcodeUnlock(Self.passcode) == .passcodeDelay)
        #expect(try fl.status.failedPasscodes == 5)
        #expect(try fl.status.passcodeDelayLeft == .seconds(30))
        // After it, a sixth wrong one earns five minutes; the right one clears everything.
        fl.clock.advance(31)
        #expect(await fl.passcodeUnlock("wrong 6") == .authenticationFailed)
        #expect(try fl.status.passcodeDelayLeft == .seconds(300))
        fl.clock.advance(301)
        #expect(await fl.passcodeUnlock(Self.passcode) == nil)
        #expect(try fl.status.failedPasscodes == 0 && fl.status.passcodeDelayLeft == nil)
        await fl.stop()
    }

    @Test(arguments: Custody.allCases)
    func theReuseWindowSkipsTheTouchForItsLength(_ custody: Custody) async throws {
        let fl = try await ParityInstallation(custody)
        // Off by default: every unlock scans.
        fl.touches.queue(.finger(.rightIndex))
        _ = try await fl.openNotes()
        #expect(fl.touches.waiting == 0)
        _ = try await SettingsEditor(fl.context(fl.user(typing: Self.passcode)).environment).changeSetting(.reuseWindow, to: "2m")
        // Measured from the passcode just typed: no scan for two minutes, however often.
        for _ in 1...2 { #expect(try await fl.openNotes().scanPrompts == 0) }
        #expect(try fl.status.reuseWindowLeft == .seconds(120))
        // `verify` always scans, and its match opens a new window.
        fl.clock.advance(100)
        fl.touches.queue(.finger(.rightIndex))
        #expect(await fl.verify() == nil)
        #expect(fl.touches.waiting == 0)
        fl.clock.advance(119)
        #expect(try await fl.openNotes().scanPrompts == 0)
        // Over: a touch again.
        fl.clock.advance(2)
        fl.touches.queue(.finger(.rightIndex))
        #expect(try await fl.openNotes().scanPrompts == 1)
        #expect(fl.touches.waiting == 0)
        await fl.stop()
    }

    @Test(arguments: Custody.allCases)
    func theCachedKeyExpiresAndLockForgetsItAndTheWindow(_ custody: Custody) async throws {
        let fl = try await ParityInstallation(custody)
        _ = try await SettingsEditor(fl.context(fl.user(typing: Self.passcode)).environment).changeSetting(.cacheExpiry, to: "1h")
        #expect(try fl.status.keyExpiresIn == .seconds(3600))
        fl.clock.advance(3601)
        #expect(try !fl.status.unlocked)
        // No key held: no scan, the passcode (which caches the key again).
        fl.touches.queue(.finger(.rightIndex))
        #expect(try await fl.openNotes(typing: Self.passcode).prompts == 1)
        #expect(fl.touches.waiting == 1)
        #expect(try fl.status.unlocked)
        _ = try await SettingsEditor(fl.context(fl.user(typing: Self.passcode)).environment).changeSetting(.reuseWindow, to: "5m")
        #expect(try Locking(fl.context(fl.user()).environment).lock().forgotten == 1)
        #expect(try !fl.status.unlocked && fl.status.reuseWindowLeft == nil)
        #expect(try Locking(fl.context(fl.user()).environment).lock().forgotten == 0)
        #expect(try await fl.openNotes(typing: Self.passcode).prompts == 1)
        #expect(fl.touches.waiting == 1)
        await fl.stop()
    }

    @Test(arguments: Custody.allCases)
    func enrollingAndForgettingAFingerNeedThePasscodeAndChangeWhatMatches(_ custody: Custody) async throws {
        let fl = try await ParityInstallation(custody)
        fl.touches.queue(.finger(.leftThumb))
        let enrolling = fl.user(typing: Self.passcode)
        _ = try await Enrollment(fl.context(enrolling).environment).enroll(
            .leftThumb, username: "parity", confirmReplacing: { _ in false }, updates: { _ in })
        #expect(enrolling.prompts == 1)
        #expect(try fl.status.enrolledFingers?.map(\.finger).sorted() == [.rightIndex, .leftThumb].sorted())
        fl.touches.queue(.finger(.leftThumb))
        #expect(await fl.verify(.leftThumb) == nil)
        let forgetting = fl.user(typing: Self.passcode)
        let forgotten = try await Enrollment(fl.context(forgetting).environment).forget(.leftThumb) { _ in true }
        #expect(forgotten.map(\.finger) == [.leftThumb])
        #expect(forgetting.prompts == 1)
        #expect(await fl.verify(.leftThumb) == .notFound)
        fl.touches.queue(.finger(.leftThumb))
        #expect(await fl.verify() == .authenticationFailed)
        await fl.stop()
    }

    @Test(arguments: Custody.allCases)
    func forgettingAFingerThatIsNotEnrolledSaysSoBeforeThePasscode(_ custody: Custody) async throws {
        let fl = try await ParityInstallation(custody)
        let forgetting = fl.user(typing: Self.passcode)
        let refused = await #expect(throws: AuthError.self) {
            try await Enrollment(fl.context(forgetting).environment).forget(.leftThumb) { _ in true }
        }
        #expect(refused?.code == .notFound)
        #expect(refused?.message.contains("left-thumb is not enrolled") == true, "\(refused?.message ?? "")")
        #expect(forgetting.prompts == 0)
        await fl.stop()
    }

    /// User mode keeps the key and the passcode's reuse marker in the user's keyring; system mode
    /// keeps both in fingerlockd and leaves nothing there (no `…:passcode` marker either).
    @Test(arguments: Custody.allCases)
    func aPasscodeUnlockLeavesKeyringEntriesOnlyInUserMode(_ custody: Custody) async throws {
        let fl = try await ParityInstallation(custody)
        _ = try fl.keys.invalidateAll()
        _ = try fl.reuseMarkers.invalidateAll()
        #expect(await fl.passcodeUnlock(Self.passcode) == nil)
        let keys = try fl.keys.invalidateAll()
        let markers = try fl.reuseMarkers.invalidateAll()
        switch custody {
        case .user: #expect(keys == 1 && markers >= 1, "keys \(keys), markers \(markers)")
        case .system: #expect(keys == 0 && markers == 0, "keys \(keys), markers \(markers)")
        }
        await fl.stop()
    }
}
