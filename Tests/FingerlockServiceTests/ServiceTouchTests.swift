import FingerlockProtocol
import FingerlockServiceTestSupport
import FingerlockTestSupport
import Fingerprint
import Foundation
import Testing

@testable import FingerlockService

/// Fingerprint unlock and enrollment through the service's policy, in process, with the simulated
/// reader: a touch releases only a key the service holds, for the vault's own fingers.
@Suite(.timed, .timeLimit(.minutes(1)))
struct ServiceTouchTests {
    let alice = TouchFixture.alice
    let bob = TouchFixture.bob

    @Test func enrollmentStreamsItsStagesAndKeepsTheTemplateSealed() async throws {
        let fixture = try TouchFixture(script: [.finger(.rightIndex), .retry(.centerFinger), .finger(.rightIndex)])
        let stages = try await fixture.enroll(.rightIndex)
        #expect(stages.map(\.event) == [.opened, .stage, .retry, .stage])
        #expect(stages.last == .init(event: .stage, completed: 2, total: 2, retry: ""))
        let listed = try fixture.core.listFingers(.init(vault: fixture.vault.id), peer: alice).fingers
        #expect(listed.map(\.finger) == ["right-index-finger"])
        #expect(listed.map(\.reader) == ["simulated:0"])
        // On disk: 0600, sealed (no simulated template's magic in the clear).
        let path = fixture.harness.directory + "/state/v1/\(alice.uid)/\(fixture.vault.id.lowercased())/print.right-index-finger"
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(bytes.range(of: Data("FLSIM1".utf8)) == nil)
        #expect(bytes.range(of: Data("right-index".utf8)) == nil)
    }

    @Test func withoutACachedKeyATouchAsksForThePasscodeAndScansNothing() async throws {
        let fixture = try TouchFixture(script: [.finger(.rightIndex), .finger(.rightIndex), .finger(.rightIndex)])
        _ = try await fixture.enroll(.rightIndex)
        // A passcode unlock that caches nothing leaves nothing for a touch to release.
        try fixture.unlockWithPasscode(cacheSeconds: 0)
        let error = await fixture.touchError()
        #expect(error?.name == "io.fingerlock.Service.PasscodeRequired")
        #expect(error?.parameters["reason"] == .string("locked"))
        #expect(fixture.touches.remainingCount == 1)
        #expect(try fixture.failedTouches == 0)
    }

    @Test func aMatchingTouchReturnsTheCachedKeyAndANoMatchIsCounted() async throws {
        let fixture = try TouchFixture(script: [
            .finger(.rightIndex), .finger(.rightIndex), .unknown, .finger(.leftThumb), .finger(.rightIndex),
        ])
        _ = try await fixture.enroll(.rightIndex)
        try fixture.unlockWithPasscode(cacheSeconds: 600)
        let first = await fixture.touchError()
        #expect(first?.name == "io.fingerlock.Service.NoMatch")
        #expect(first?.int("failedTouches") == 1 && first?.int("touchesLeft") == 4)
        #expect(await fixture.touchError()?.int("failedTouches") == 2)
        let reply = try await fixture.touch()
        #expect(reply.key == fixture.vault.key.base64EncodedString())
        #expect(reply.finger == "right-index-finger" && reply.reader == "simulated:0")
        #expect(try fixture.failedTouches == 0)
    }

    @Test func fiveFailedTouchesForgetTheKeyUntilThePasscode() async throws {
        let fixture = try TouchFixture(
            script: [.finger(.rightIndex), .finger(.rightIndex)] + Array(repeating: .unknown, count: 5) + [
                .finger(.rightIndex), .finger(.rightIndex),
            ])
        _ = try await fixture.enroll(.rightIndex)
        try fixture.unlockWithPasscode(cacheSeconds: 600)
        for attempt in 1...5 {
            let error = await fixture.touchError()
            #expect(error?.int("failedTouches") == attempt)
            #expect(error?.int("touchesLeft") == 5 - attempt)
        }
        #expect(try !fixture.core.status(.init(vault: fixture.vault.id), peer: alice).status.unlocked)
        // The right finger now releases nothing, and is not even scanned.
        #expect(await fixture.touchError()?.name == "io.fingerlock.Service.PasscodeRequired")
        #expect(fixture.touches.remainingCount == 2)
        // The passcode clears the count and caches the key again.
        try fixture.unlockWithPasscode(cacheSeconds: 600)
        #expect(try fixture.failedTouches == 0)
        #expect(try await fixture.touch().key == fixture.vault.key.base64EncodedString())
    }

    @Test func lockForgetsTheKeyATouchCouldRelease() async throws {
        let fixture = try TouchFixture(script: [.finger(.rightIndex), .finger(.rightIndex), .finger(.rightIndex)])
        _ = try await fixture.enroll(.rightIndex)
        try fixture.unlockWithPasscode(cacheSeconds: 600)
        _ = try fixture.core.lock(.init(vault: fixture.vault.id), peer: alice)
        #expect(await fixture.touchError()?.name == "io.fingerlock.Service.PasscodeRequired")
    }

    @Test func theCachedKeyExpiresForTouchesToo() async throws {
        let fixture = try TouchFixture(script: [.finger(.rightIndex), .finger(.rightIndex), .finger(.rightIndex)])
        _ = try await fixture.enroll(.rightIndex)
        try fixture.unlockWithPasscode(cacheSeconds: 60)
        fixture.harness.clock.advance(61)
        #expect(await fixture.touchError()?.name == "io.fingerlock.Service.PasscodeRequired")
    }

    @Test func noEnrolledFingerAndAnotherFingerHaveTheirOwnErrors() async throws {
        let fixture = try TouchFixture(script: [.finger(.rightIndex), .finger(.rightIndex)])
        try fixture.unlockWithPasscode(cacheSeconds: 600)
        let none = await fixture.touchError()
        #expect(none?.name == "io.fingerlock.Service.NoFingerEnrolled")
        #expect(none?.parameters["reader"] == .string("simulated:0"))
        _ = try await fixture.enroll(.rightIndex)
        #expect(await fixture.touchError(finger: .leftThumb)?.name == "io.fingerlock.Service.FingerNotEnrolled")
        #expect(try fixture.failedTouches == 0)
    }

    @Test func bobCannotUseAlicesVaultOrHerFingers() async throws {
        let fixture = try TouchFixture(script: [.finger(.rightIndex), .finger(.rightIndex), .finger(.rightIndex)])
        _ = try await fixture.enroll(.rightIndex)
        try fixture.unlockWithPasscode(cacheSeconds: 600)
        #expect(await fixture.touchError(as: bob)?.name == "io.fingerlock.Service.VaultNotRegistered")
        // Bob's own vault with the same id, unlocked by his own passcode: Alice's finger is not his.
        _ = try fixture.core.registerVault(.init(vault: fixture.vault.id), peer: bob)
        let bobsSlot = try fixture.vault.seal(fixture.core, as: bob)
        _ = try fixture.vault.unlock(fixture.core, slot: bobsSlot, as: bob, cacheSeconds: 600)
        #expect(await fixture.touchError(as: bob)?.name == "io.fingerlock.Service.NoFingerEnrolled")
        #expect(try fixture.core.listFingers(.init(vault: fixture.vault.id), peer: bob).fingers.isEmpty)
        #expect(fixture.touches.remainingCount == 1)
    }

    @Test func aTemplateCopiedToAnotherUsersVaultDoesNotOpen() async throws {
        let fixture = try TouchFixture(script: [.finger(.rightIndex), .finger(.rightIndex)])
        _ = try await fixture.enroll(.rightIndex)
        _ = try fixture.core.registerVault(.init(vault: fixture.vault.id), peer: bob)
        let state = fixture.harness.directory + "/state/v1/"
        let id = fixture.vault.id.lowercased()
        try FileManager.default.copyItem(
            atPath: state + "\(alice.uid)/\(id)/print.right-index-finger",
            toPath: state + "\(bob.uid)/\(id)/print.right-index-finger")
        #expect(throws: VarlinkError.self) { try fixture.core.listFingers(.init(vault: id), peer: bob) }
        // Renamed to another finger of Alice's own vault, it does not open either.
        try FileManager.default.moveItem(
            atPath: state + "\(alice.uid)/\(id)/print.right-index-finger",
            toPath: state + "\(alice.uid)/\(id)/print.left-thumb")
        #expect(throws: VarlinkError.self) { try fixture.core.listFingers(.init(vault: id), peer: alice) }
    }

    @Test func enrollingNeedsTheRightPasscodeCountedAndScansNothingOtherwise() async throws {
        let fixture = try TouchFixture(script: [.finger(.rightIndex), .finger(.rightIndex)])
        do {
            _ = try await fixture.enroll(.rightIndex, stretched: ClientVault.wrong)
            Issue.record("enrolled with a wrong passcode")
        } catch {
            #expect((error as? VarlinkError)?.name == "io.fingerlock.Service.WrongPasscode")
        }
        #expect(fixture.touches.remainingCount == 2)
        #expect(try fixture.core.status(.init(vault: fixture.vault.id), peer: alice).status.failedPasscodes == 1)
        #expect(try fixture.core.listFingers(.init(vault: fixture.vault.id), peer: alice).fingers.isEmpty)
    }

    @Test func forgettingAFingerNeedsThePasscodeAndRemovesIt() async throws {
        let fixture = try TouchFixture(script: [.finger(.rightIndex), .finger(.rightIndex), .finger(.rightIndex)])
        _ = try await fixture.enroll(.rightIndex)
        let wrong = VarlinkParameters.ForgetFinger(
            proof: fixture.vault.proof(slot: fixture.slot, stretched: ClientVault.wrong), finger: "right-index")
        await #expect(throws: VarlinkError.self) { try await fixture.core.forgetFinger(wrong, peer: alice) }
        #expect(try fixture.core.listFingers(.init(vault: fixture.vault.id), peer: alice).fingers.count == 1)
        let missing = VarlinkParameters.ForgetFinger(proof: fixture.vault.proof(slot: fixture.slot), finger: "left-thumb")
        do {
            try await fixture.core.forgetFinger(missing, peer: alice)
            Issue.record("forgot a finger that is not enrolled")
        } catch {
            #expect((error as? VarlinkError)?.name == "io.fingerlock.Service.FingerNotEnrolled")
        }
        try await fixture.core.forgetFinger(
            .init(proof: fixture.vault.proof(slot: fixture.slot), finger: "right-index"), peer: alice)
        #expect(try fixture.core.listFingers(.init(vault: fixture.vault.id), peer: alice).fingers.isEmpty)
        try fixture.unlockWithPasscode(cacheSeconds: 600)
        #expect(await fixture.touchError()?.name == "io.fingerlock.Service.NoFingerEnrolled")
    }

    @Test func forgettingTheVaultRemovesItsTemplates() async throws {
        let fixture = try TouchFixture(script: [.finger(.rightIndex), .finger(.rightIndex)])
        _ = try await fixture.enroll(.rightIndex)
        try fixture.core.forgetVault(fixture.vault.proof(slot: fixture.slot), peer: alice)
        let directory = fixture.harness.directory + "/state/v1/\(alice.uid)/\(fixture.vault.id.lowercased())"
        #expect(!FileManager.default.fileExists(atPath: directory))
    }

    @Test func readerProblemsAndBadParametersAreReported() async throws {
        let harness = try ServiceHarness()
        let vault = ClientVault()
        _ = try harness.core.registerVault(.init(vault: vault.id), peer: alice)
        let slot = try vault.seal(harness.core, as: alice)
        _ = try vault.unlock(harness.core, slot: slot, as: alice, cacheSeconds: 600)
        do {
            _ = try await harness.core.unlockWithTouch(.init(vault: vault.id, timeoutSeconds: 5), peer: alice)
            Issue.record("a touch without a reader unlocked")
        } catch {
            #expect((error as? VarlinkError)?.name == "io.fingerlock.Service.ReaderUnavailable")
            #expect((error as? VarlinkError)?.parameters["problem"] == .string("noReader"))
        }
        for (finger, timeout, parameter) in [("right-index", 0, "timeoutSeconds"), ("right-index", 301, "timeoutSeconds"), ("nose", 5, "finger")] {
            do {
                _ = try await harness.core.unlockWithTouch(
                    .init(vault: vault.id, finger: finger, timeoutSeconds: timeout), peer: alice)
            } catch {
                #expect((error as? VarlinkError) == .invalidParameter(parameter))
            }
        }
    }

    @Test func timeoutsAndRetryHintsAreNotCounted() async throws {
        let fixture = try TouchFixture(script: [.finger(.rightIndex), .finger(.rightIndex), .timeout, .retry(.tooShort)])
        _ = try await fixture.enroll(.rightIndex)
        try fixture.unlockWithPasscode(cacheSeconds: 600)
        #expect(await fixture.touchError()?.name == "io.fingerlock.Service.ScanTimedOut")
        let retry = await fixture.touchError()
        #expect(retry?.name == "io.fingerlock.Service.ScanRetry")
        #expect(retry?.parameters["reason"] == .string("short"))
        #expect(try fixture.failedTouches == 0)
    }
}
