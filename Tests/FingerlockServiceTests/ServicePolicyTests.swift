import Auth
import FingerlockProtocol
import FingerlockServiceTestSupport
import FingerlockTestSupport
import Fingerprint
import Foundation
import Testing

@testable import FingerlockService

/// The vault's own settings in the service (SetVaultPolicy): told only by the owner holding the
/// vault key, bounded like `config set`, kept 0600, and applied to the cached key, the reuse window,
/// the scan timeout, the reader kind and the counters.
@Suite(.timed, .timeLimit(.minutes(1)))
struct ServicePolicyTests {
    let alice = TouchFixture.alice
    let bob = TouchFixture.bob

    static func policy(
        cache: Int = 3600, reuse: Int = 0, tries: Int = 3, timeout: Int = 30, kind: String = "test"
    ) -> VarlinkParameters.VaultPolicy {
        .init(cacheExpirySeconds: cache, reuseWindowSeconds: reuse, maxTries: tries, scanTimeoutSeconds: timeout, kind: kind)
    }

    func set(
        _ fixture: TouchFixture, _ policy: VarlinkParameters.VaultPolicy, key: Data? = nil, as peer: PeerCredentials? = nil,
        touches: Int? = nil, passcodes: Int? = nil
    ) throws(VarlinkError) -> Int {
        try fixture.core.setVaultPolicy(
            .init(
                vault: fixture.vault.id, key: (key ?? fixture.vault.key).base64EncodedString(), policy: policy,
                failedTouches: touches, failedPasscodes: passcodes), peer: peer ?? alice
        ).cachedSeconds
    }

    func status(_ fixture: TouchFixture) throws -> VarlinkParameters.VaultStatus {
        try fixture.core.status(.init(vault: fixture.vault.id), peer: alice).status
    }

    func errorName(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch {
            return (error as? VarlinkError)?.name
        }
    }

    @Test func beforeAnyPolicyAPasscodeUnlockCachesForTheDefaultNotTheAskedLife() throws {
        let fixture = try TouchFixture(script: [])
        // What the CLI asks for: the longest life. A client killed right after keeps no more than 8 h.
        let reply = try fixture.vault.unlock(fixture.core, slot: fixture.slot, as: alice, cacheSeconds: 48 * 3600)
        #expect(reply.cachedSeconds == 8 * 3600)
        #expect(try status(fixture).unlockedSeconds == 8 * 3600)
        #expect(try status(fixture).policy == nil)
    }

    @Test func thePolicyShortensTheCachedKeyAndCapsEveryLaterUnlock() throws {
        let fixture = try TouchFixture(script: [])
        try fixture.unlockWithPasscode(cacheSeconds: 48 * 3600)
        #expect(try set(fixture, Self.policy(cache: 120)) == 120)
        #expect(try status(fixture).unlockedSeconds == 120)
        #expect(try status(fixture).policy == Self.policy(cache: 120))
        // The next unlock, by a client that asks for 48 h and never says more, gets 2 min.
        let reply = try fixture.vault.unlock(fixture.core, slot: fixture.slot, as: alice, cacheSeconds: 48 * 3600)
        #expect(reply.cachedSeconds == 120)
        fixture.harness.clock.advance(121)
        #expect(try !status(fixture).unlocked)
        // A shorter life asked for still wins; a longer policy never lengthens a cached key.
        #expect(try fixture.vault.unlock(fixture.core, slot: fixture.slot, as: alice, cacheSeconds: 30).cachedSeconds == 30)
        #expect(try set(fixture, Self.policy(cache: 48 * 3600)) == 30)
    }

    @Test func onlyTheOwnerWithTheVaultKeySetsIt() throws {
        let fixture = try TouchFixture(script: [])
        #expect(errorName { _ = try set(fixture, Self.policy(), key: ClientVault.wrong) } == "io.fingerlock.Service.KeyRequired")
        // Bob, even with Alice's key, has no such vault.
        #expect(errorName { _ = try set(fixture, Self.policy(), as: bob) } == "io.fingerlock.Service.VaultNotRegistered")
        #expect(try status(fixture).policy == nil)
        #expect(errorName { _ = try set(fixture, Self.policy(), key: Data(count: 7)) } == "org.varlink.service.InvalidParameter")
        // A registered vault with no slot sealed has no key to prove.
        let bare = ClientVault()
        _ = try fixture.core.registerVault(.init(vault: bare.id), peer: alice)
        #expect(
            errorName {
                _ = try fixture.core.setVaultPolicy(
                    .init(vault: bare.id, key: bare.key.base64EncodedString(), policy: Self.policy()), peer: alice)
            } == "io.fingerlock.Service.KeyRequired")
    }

    @Test func everyValueIsBoundedAsConfigSetBoundsIt() throws {
        let fixture = try TouchFixture(script: [])
        let outOfBounds: [VarlinkParameters.VaultPolicy] = [
            Self.policy(cache: 59), Self.policy(cache: 48 * 3600 + 1), Self.policy(reuse: -1), Self.policy(reuse: 301),
            Self.policy(tries: 0), Self.policy(tries: 11), Self.policy(timeout: 4), Self.policy(timeout: 121),
            Self.policy(kind: "real"), Self.policy(kind: ""),
        ]
        for policy in outOfBounds {
            #expect(errorName { _ = try set(fixture, policy) } == "org.varlink.service.InvalidParameter", "\(policy)")
        }
        #expect(errorName { _ = try set(fixture, Self.policy(), touches: -1) } == "org.varlink.service.InvalidParameter")
        #expect(errorName { _ = try set(fixture, Self.policy(), passcodes: 1001) } == "org.varlink.service.InvalidParameter")
        #expect(try status(fixture).policy == nil)
        // The edges are allowed.
        _ = try set(fixture, Self.policy(cache: 60, reuse: 300, tries: 10, timeout: 120, kind: "hardware"))
        _ = try set(fixture, Self.policy(cache: 48 * 3600, reuse: 0, tries: 1, timeout: 5))
    }

    @Test func itIsKeptPrivateAndADamagedFileIsAFailureNotTheDefaults() throws {
        let fixture = try TouchFixture(script: [])
        _ = try set(fixture, Self.policy(cache: 600, kind: "hardware"))
        let path = fixture.harness.directory + "/state/v1/\(alice.uid)/\(fixture.vault.id.lowercased())/policy"
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        // A looser value written behind the service's back is damage.
        var text = try String(contentsOfFile: path, encoding: .utf8)
        text = text.replacingOccurrences(of: "\"cacheExpirySeconds\":600", with: "\"cacheExpirySeconds\":999999")
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        #expect(
            errorName { _ = try fixture.vault.unlock(fixture.core, slot: fixture.slot, as: alice, cacheSeconds: 600) }
                == "io.fingerlock.Service.ServiceFailure")
    }

    @Test func aHardwareVaultRefusesTheSimulatedReaderBeforeCountingAndATestVaultTakesIt() async throws {
        let fixture = try TouchFixture(script: [.finger(.rightIndex), .finger(.rightIndex), .finger(.rightIndex)])
        _ = try await fixture.enroll(.rightIndex)
        try fixture.unlockWithPasscode(cacheSeconds: 600)
        _ = try set(fixture, Self.policy(kind: "hardware"))
        let refused = await fixture.touchError()
        #expect(refused?.name == "io.fingerlock.Service.WrongReaderKind")
        #expect(refused?.parameters["reader"] == .string("simulated:0"))
        #expect(refused?.parameters["kind"] == .string("hardware"))
        #expect(fixture.touches.remainingCount == 1)
        #expect(try fixture.failedTouches == 0)
        // Enrolling on it is refused before the passcode is counted.
        do {
            _ = try await fixture.enroll(.leftThumb)
            Issue.record("a hardware vault enrolled on the simulated reader")
        } catch let error as VarlinkError {
            #expect(error.name == "io.fingerlock.Service.WrongReaderKind")
        }
        #expect(try status(fixture).failedPasscodes == 0)
        _ = try set(fixture, Self.policy(kind: "test"))
        #expect(try await fixture.touch().finger == "right-index-finger")
    }

    @Test func theVaultsScanTimeoutReplacesTheCallers() async throws {
        // No touch comes: the scan waits for the policy's 5 s, not the caller's 300 s.
        let fixture = try TouchFixture(script: [.finger(.rightIndex), .finger(.rightIndex)])
        _ = try await fixture.enroll(.rightIndex)
        try fixture.unlockWithPasscode(cacheSeconds: 600)
        _ = try set(fixture, Self.policy(timeout: 5))
        let started = ContinuousClock.now
        do {
            _ = try await fixture.touch(timeout: 300)
            Issue.record("a touch with no finger unlocked")
        } catch let error as VarlinkError {
            #expect(error.name == "io.fingerlock.Service.ScanTimedOut")
            #expect(error.int("seconds") == 5)
        }
        #expect(ContinuousClock.now - started < .seconds(30))
    }

    @Test func withinTheReuseWindowATouchUnlockNeedsNoScan() async throws {
        let fixture = try TouchFixture(script: [.finger(.rightIndex), .finger(.rightIndex), .finger(.rightIndex)])
        _ = try await fixture.enroll(.rightIndex)
        _ = try set(fixture, Self.policy(reuse: 60))
        try fixture.unlockWithPasscode(cacheSeconds: 600)
        #expect(try status(fixture).reuseSeconds == 60)
        let reused = try await fixture.core.unlockWithTouch(
            .init(vault: fixture.vault.id, timeoutSeconds: 5, reuse: true), peer: alice)
        #expect(reused.reused == true && reused.finger.isEmpty)
        #expect(reused.key == fixture.vault.key.base64EncodedString())
        #expect(fixture.touches.remainingCount == 1)
        // Without `reuse` (verify), a scan all the same.
        #expect(try await fixture.touch().reused == nil)
        #expect(fixture.touches.remainingCount == 0)
        // The window ends; a shorter window told later applies at once; Lock ends it.
        fixture.harness.clock.advance(61)
        #expect(try status(fixture).reuseSeconds == 0)
        _ = try set(fixture, Self.policy(reuse: 300))
        #expect(try status(fixture).reuseSeconds ?? 0 > 0)
        _ = try fixture.core.lock(.init(vault: fixture.vault.id), peer: alice)
        #expect(await fixture.touchError()?.name == "io.fingerlock.Service.PasscodeRequired")
    }

    @Test func withoutAScanOnlyTheReuseWindowReleasesAndOtherwiseTheTouchSettingsAreSaid() async throws {
        // Two touches enroll; the third is never scanned.
        let fixture = try TouchFixture(script: [.finger(.rightIndex), .finger(.rightIndex), .finger(.rightIndex)])
        _ = try await fixture.enroll(.rightIndex)
        try fixture.unlockWithPasscode(cacheSeconds: 600)
        let vault = VarlinkParameters.Vault(vault: fixture.vault.id)
        // Never told a policy: a touch is needed, with no settings to say.
        do {
            _ = try fixture.core.releaseWithinReuseWindow(vault, peer: alice)
            Issue.record("released without a window")
        } catch {
            #expect(error.name == "io.fingerlock.Service.ScanRequired")
            #expect(error.parameters.isEmpty)
        }
        _ = try set(fixture, Self.policy(reuse: 0, tries: 4, timeout: 20))
        do {
            _ = try fixture.core.releaseWithinReuseWindow(vault, peer: alice)
            Issue.record("released without a window")
        } catch {
            #expect(error.int("maxTries") == 4 && error.int("scanTimeoutSeconds") == 20)
        }
        _ = try set(fixture, Self.policy(reuse: 60))
        try fixture.unlockWithPasscode(cacheSeconds: 600)
        #expect(try fixture.core.releaseWithinReuseWindow(vault, peer: alice).key == fixture.vault.key.base64EncodedString())
        // Not for Bob, whose vault this is not; and not after Lock.
        #expect(throws: VarlinkError.self) { try fixture.core.releaseWithinReuseWindow(vault, peer: bob) }
        _ = try fixture.core.lock(.init(vault: fixture.vault.id), peer: alice)
        let locked = #expect(throws: VarlinkError.self) { try fixture.core.releaseWithinReuseWindow(vault, peer: alice) }
        #expect(locked?.name == "io.fingerlock.Service.PasscodeRequired")
        // Nothing was scanned for any of it.
        #expect(fixture.touches.remainingCount == 1)
    }

    /// So `verify` needs no round trip for the policy before its scan: the reply says whether the
    /// client, which then holds the key, should tell it.
    @Test func aTouchSaysWhetherTheServiceKnowsTheVaultsSettings() async throws {
        let fixture = try TouchFixture(script: Array(repeating: .finger(.rightIndex), count: 4))
        _ = try await fixture.enroll(.rightIndex)
        try fixture.unlockWithPasscode(cacheSeconds: 600)
        #expect(try await fixture.touch().policyKnown == false)
        _ = try set(fixture, Self.policy())
        #expect(try await fixture.touch().policyKnown == true)
    }

    @Test func afterALockoutTheReasonStaysLockoutAndReuseReleasesNothing() async throws {
        let fixture = try TouchFixture(script: [.finger(.rightIndex), .finger(.rightIndex)] + Array(repeating: .unknown, count: 5))
        _ = try await fixture.enroll(.rightIndex)
        _ = try set(fixture, Self.policy(reuse: 300))
        try fixture.unlockWithPasscode(cacheSeconds: 600)
        for _ in 1...5 { _ = await fixture.touchError() }
        for _ in 1...2 {
            let error = await fixture.touchError()
            #expect(error?.name == "io.fingerlock.Service.PasscodeRequired")
            #expect(error?.parameters["reason"] == .string("lockout"))
        }
        do {
            _ = try await fixture.core.unlockWithTouch(.init(vault: fixture.vault.id, timeoutSeconds: 5, reuse: true), peer: alice)
            Issue.record("a locked-out vault reused its window")
        } catch let error as VarlinkError {
            #expect(error.parameters["reason"] == .string("lockout"))
        }
    }

    @Test func carriedCountsOnlyRaiseTheServicesCounters() throws {
        let fixture = try TouchFixture(script: [])
        try fixture.unlockWithPasscode(cacheSeconds: 600)
        _ = try set(fixture, Self.policy(), touches: 2, passcodes: 5)
        var state = try status(fixture)
        #expect(state.failedTouches == 2 && state.failedPasscodes == 5)
        // The five wrong passcodes carried start their delay.
        #expect(state.delaySeconds == 60)
        // Lower counts never lower them.
        _ = try set(fixture, Self.policy(), touches: 0, passcodes: 0)
        state = try status(fixture)
        #expect(state.failedTouches == 2 && state.failedPasscodes == 5)
        // Counts at the lockout forget the key, as the touches would have.
        _ = try set(fixture, Self.policy(), touches: 5)
        state = try status(fixture)
        #expect(state.touchLockedOut && !state.unlocked)
    }

    @Test func forgettingTheVaultForgetsItsPolicy() throws {
        let fixture = try TouchFixture(script: [])
        _ = try set(fixture, Self.policy())
        try fixture.core.forgetVault(fixture.vault.proof(slot: fixture.slot), peer: alice)
        let directory = fixture.harness.directory + "/state/v1/\(alice.uid)/\(fixture.vault.id.lowercased())"
        #expect(!FileManager.default.fileExists(atPath: directory))
    }
}
