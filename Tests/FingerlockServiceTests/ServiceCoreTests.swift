import Auth
import AuthCore
import Crypto
import FingerlockProtocol
import FingerlockServiceTestSupport
import FingerlockTestSupport
import Foundation
import Logging
import Synchronization
import Testing

@testable import FingerlockService

/// The service's policy called in process, over real state files in a temporary directory.
@Suite(.timed, .timeLimit(.minutes(1)))
struct ServiceCoreTests {
    let harness: ServiceHarness
    var core: ServiceCore { harness.core }
    let alice = ServiceHarness.alice
    let bob = ServiceHarness.bob

    init() throws { harness = try ServiceHarness() }

    func errorName(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch {
            return (error as? VarlinkError)?.name ?? "\(error)"
        }
    }

    @Test func registeringIsIdempotentAndKeepsTheSecret() throws {
        let vault = ClientVault()
        #expect(try core.registerVault(.init(vault: vault.id), peer: alice).created)
        let slot = try vault.seal(core, as: alice)
        #expect(try !core.registerVault(.init(vault: vault.id), peer: alice).created)
        // Another spelling of the same UUID is the same vault.
        #expect(try !core.registerVault(.init(vault: vault.id.lowercased()), peer: alice).created)
        #expect(try vault.unlock(core, slot: slot, as: alice).key == vault.key.base64EncodedString())
    }

    @Test func theRightPasscodeUnlocksCachesAndClearsTheCounters() throws {
        let vault = ClientVault()
        _ = try core.registerVault(.init(vault: vault.id), peer: alice)
        let slot = try vault.seal(core, as: alice)
        #expect(throws: VarlinkError.self) {
            try vault.unlock(core, slot: slot, as: alice, stretched: ClientVault.wrong)
        }
        #expect(try core.status(.init(vault: vault.id), peer: alice).status.failedPasscodes == 1)
        let reply = try vault.unlock(core, slot: slot, as: alice, cacheSeconds: 600)
        #expect(reply.key == vault.key.base64EncodedString())
        #expect(reply.cachedSeconds == 600)
        let status = try core.status(.init(vault: vault.id), peer: alice).status
        #expect(
            status == .init(registered: true, unlocked: true, unlockedSeconds: 600, failedPasscodes: 0, delaySeconds: 0)
        )
        #expect(try core.lock(.init(vault: vault.id), peer: alice).wasUnlocked)
        #expect(try !core.status(.init(vault: vault.id), peer: alice).status.unlocked)
        #expect(try !core.lock(.init(vault: vault.id), peer: alice).wasUnlocked)
    }

    @Test func lockWithoutAVaultForgetsEveryKeyOfTheCallersAndNoOneElses() throws {
        func unlocked(_ peer: PeerCredentials) throws -> ClientVault {
            let vault = ClientVault()
            _ = try core.registerVault(.init(vault: vault.id), peer: peer)
            _ = try vault.unlock(core, slot: try vault.seal(core, as: peer), as: peer, cacheSeconds: 600)
            return vault
        }
        let alices = [try unlocked(alice), try unlocked(alice)]
        let bobs = try unlocked(bob)
        #expect(try core.lock(.init(vault: nil), peer: alice).wasUnlocked)
        for vault in alices {
            #expect(try !core.status(.init(vault: vault.id), peer: alice).status.unlocked)
        }
        #expect(try core.status(.init(vault: bobs.id), peer: bob).status.unlocked)
        #expect(try !core.lock(.init(vault: nil), peer: alice).wasUnlocked)
    }

    @Test func wrongPasscodesAreCountedBeforeEvaluationAndDelayedAsDesigned() throws {
        let vault = ClientVault()
        _ = try core.registerVault(.init(vault: vault.id), peer: alice)
        let slot = try vault.seal(core, as: alice)
        for attempt in 1...5 {
            do {
                _ = try vault.unlock(core, slot: slot, as: alice, stretched: ClientVault.wrong)
                Issue.record("a wrong passcode unlocked")
            } catch {
                #expect(error.name == "io.fingerlock.Service.WrongPasscode")
                #expect(error.int("failedPasscodes") == attempt)
                #expect(error.int("delaySeconds") == (attempt == 5 ? 60 : 0))
            }
        }
        // During the delay even the right passcode is refused at once, and not counted.
        do {
            _ = try vault.unlock(core, slot: slot, as: alice)
            Issue.record("unlocked during a delay")
        } catch {
            #expect(error.name == "io.fingerlock.Service.PasscodeDelayed")
            #expect(error.int("secondsLeft") == 60)
            #expect(error.int("failedPasscodes") == 5)
        }
        harness.clock.advance(30)
        #expect(try core.status(.init(vault: vault.id), peer: alice).status.delaySeconds == 30)
        harness.clock.advance(31)
        // The sixth wrong one brings 5 min.
        do {
            _ = try vault.unlock(core, slot: slot, as: alice, stretched: ClientVault.wrong)
        } catch {
            #expect(error.int("delaySeconds") == 300)
        }
        harness.clock.advance(301)
        #expect(try vault.unlock(core, slot: slot, as: alice).key == vault.key.base64EncodedString())
        #expect(try core.status(.init(vault: vault.id), peer: alice).status.failedPasscodes == 0)
    }

    @Test func anotherUserCannotSeeUseLockOrCountAgainstTheVault() throws {
        let vault = ClientVault()
        _ = try core.registerVault(.init(vault: vault.id), peer: alice)
        let slot = try vault.seal(core, as: alice)
        _ = try vault.unlock(core, slot: slot, as: alice)

        #expect(try core.status(.init(vault: vault.id), peer: bob).status.registered == false)
        #expect(
            errorName { _ = try vault.unlock(core, slot: slot, as: bob) } == "io.fingerlock.Service.VaultNotRegistered")
        #expect(try !core.lock(.init(vault: vault.id), peer: bob).wasUnlocked)
        #expect(
            errorName { try core.forgetVault(vault.proof(slot: slot), peer: bob) }
                == "io.fingerlock.Service.VaultNotRegistered")
        // Bob registering the same id gets his own vault: Alice's slot does not open with his secret,
        // and his failures are his.
        #expect(try core.registerVault(.init(vault: vault.id), peer: bob).created)
        #expect(errorName { _ = try vault.unlock(core, slot: slot, as: bob) } == "io.fingerlock.Service.WrongPasscode")
        let aliceStatus = try core.status(.init(vault: vault.id), peer: alice).status
        #expect(aliceStatus.unlocked && aliceStatus.failedPasscodes == 0)
        #expect(try core.status(.init(vault: vault.id), peer: bob).status.failedPasscodes == 1)
    }

    @Test func theSlotCannotBeOpenedWithoutTheServiceSecret() throws {
        let vault = ClientVault()
        _ = try core.registerVault(.init(vault: vault.id), peer: alice)
        let sealed = try #require(Data(base64Encoded: try vault.seal(core, as: alice)))
        let stretched = SymmetricKey(data: vault.stretched)
        // The passcode alone (HKDF without the secret, or with any other secret) opens nothing.
        let withoutSecret = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: stretched, info: Data((SystemPasscodeSlot.info + vault.id.lowercased()).utf8),
            outputByteCount: 32)
        #expect(SystemPasscodeSlot.open(sealed, with: withoutSecret, authenticating: vault.associatedData) == nil)
        let otherSecret = SystemPasscodeSlot.keyEncryptionKey(
            stretched: stretched, secret: SymmetricKey(size: .bits256), vault: vault.id.lowercased())
        #expect(SystemPasscodeSlot.open(sealed, with: otherSecret, authenticating: vault.associatedData) == nil)
        // With the service's secret (which only the service user can read) it opens.
        let owner = try VaultOwner(uid: alice.uid, vault: vault.id)
        let secret = try #require(try harness.dependencies.secrets.secret(owner))
        let kek = SystemPasscodeSlot.keyEncryptionKey(stretched: stretched, secret: secret, vault: owner.vault)
        let key = try #require(SystemPasscodeSlot.open(sealed, with: kek, authenticating: vault.associatedData))
        #expect(key.withUnsafeBytes { Data($0) } == vault.key)
        // The associated data is bound.
        #expect(SystemPasscodeSlot.open(sealed, with: kek, authenticating: Data("other".utf8)) == nil)
    }

    @Test func theCachedKeyExpiresAndTheLifetimeIsCapped() throws {
        let vault = ClientVault()
        _ = try core.registerVault(.init(vault: vault.id), peer: alice)
        let slot = try vault.seal(core, as: alice)
        _ = try vault.unlock(core, slot: slot, as: alice, cacheSeconds: 10)
        harness.clock.advance(9)
        #expect(try core.status(.init(vault: vault.id), peer: alice).status.unlockedSeconds == 1)
        harness.clock.advance(2)
        #expect(try !core.status(.init(vault: vault.id), peer: alice).status.unlocked)
        #expect(
            errorName { _ = try vault.unlock(core, slot: slot, as: alice, cacheSeconds: 48 * 3600 + 1) }
                == "org.varlink.service.InvalidParameter")
        #expect(
            errorName { _ = try vault.unlock(core, slot: slot, as: alice, cacheSeconds: -1) }
                == "org.varlink.service.InvalidParameter")
        _ = try vault.unlock(core, slot: slot, as: alice, cacheSeconds: 0)
        #expect(try !core.status(.init(vault: vault.id), peer: alice).status.unlocked)
    }

    @Test func unlockingInALoopKeepsOneExpiryTimerPerVault() throws {
        let vault = ClientVault()
        _ = try core.registerVault(.init(vault: vault.id), peer: alice)
        let slot = try vault.seal(core, as: alice)
        for _ in 0..<20 { _ = try vault.unlock(core, slot: slot, as: alice, cacheSeconds: 600) }
        #expect(core.sessions.namesWithExpiryTimer == ["\(alice.uid)/\(vault.id.lowercased())"])
    }

    @Test func anUnreadKeyIsDroppedAtItsExpiryOnTheRealClock() async throws {
        var logger = Logger(label: "fingerlockd-test")
        logger.logLevel = .critical
        let directory = try TemporaryDirectory.make()
        let dependencies = try ServiceDependencies.files(
            stateDirectory: directory + "/state", logger: logger, seat: AnyCallerMayScan())
        let core = ServiceCore(dependencies: dependencies, version: "test")
        let vault = ClientVault()
        _ = try core.registerVault(.init(vault: vault.id), peer: alice)
        _ = try vault.unlock(core, slot: try vault.seal(core, as: alice), as: alice, cacheSeconds: 1)
        let name = "\(alice.uid)/\(vault.id.lowercased())"
        #expect(dependencies.keyCache.remainingLifetime(name: name) != nil)
        // Nobody reads the key; the timer drops it (remainingLifetime does not evict) and ends.
        #expect(await InProcessServer.eventually { core.sessions.namesWithExpiryTimer.isEmpty })
        #expect(try dependencies.keyCache.invalidate(name: name) == false)
    }

    @Test func forgettingAVaultNeedsThePasscodeAndRemovesEverything() throws {
        let vault = ClientVault()
        _ = try core.registerVault(.init(vault: vault.id), peer: alice)
        let slot = try vault.seal(core, as: alice)
        _ = try vault.unlock(core, slot: slot, as: alice)
        #expect(
            errorName { try core.forgetVault(vault.proof(slot: slot, stretched: ClientVault.wrong), peer: alice) }
                == "io.fingerlock.Service.WrongPasscode")
        #expect(try core.status(.init(vault: vault.id), peer: alice).status.registered)
        try core.forgetVault(vault.proof(slot: slot), peer: alice)
        let status = try core.status(.init(vault: vault.id), peer: alice).status
        #expect(!status.registered && !status.unlocked)
        let directory = harness.directory + "/state/v1/\(alice.uid)/\(vault.id.lowercased())"
        #expect(!FileManager.default.fileExists(atPath: directory))
        // A new registration is a new secret: the old slot is dead for good.
        #expect(try core.registerVault(.init(vault: vault.id), peer: alice).created)
        #expect(
            errorName { _ = try vault.unlock(core, slot: slot, as: alice) } == "io.fingerlock.Service.WrongPasscode")
    }

    @Test(arguments: [
        ("not-a-uuid", "vault"), ("../../etc", "vault"), ("", "vault"),
    ])
    func badVaultIDsAreInvalidParameters(vault: String, parameter: String) {
        do {
            _ = try core.registerVault(.init(vault: vault), peer: alice)
            Issue.record("accepted \(vault)")
        } catch {
            #expect(error == .invalidParameter(parameter))
        }
    }

    @Test func badBinaryParametersAreInvalidParameters() throws {
        let vault = ClientVault()
        _ = try core.registerVault(.init(vault: vault.id), peer: alice)
        let good = vault.stretched.base64EncodedString()
        let cases: [(VarlinkParameters.SealPasscodeSlot, String)] = [
            (.init(vault: vault.id, stretched: "%%%", key: good, associatedData: ""), "stretched"),
            (
                .init(vault: vault.id, stretched: Data(count: 31).base64EncodedString(), key: good, associatedData: ""),
                "stretched"
            ),
            (
                .init(vault: vault.id, stretched: good, key: Data(count: 33).base64EncodedString(), associatedData: ""),
                "key"
            ),
            (
                .init(
                    vault: vault.id, stretched: good, key: good, associatedData: Data(count: 5000).base64EncodedString()
                ), "associatedData"
            ),
        ]
        for (parameters, name) in cases {
            #expect(
                errorName { _ = try core.sealPasscodeSlot(parameters, peer: alice) }
                    == "org.varlink.service.InvalidParameter")
            do { _ = try core.sealPasscodeSlot(parameters, peer: alice) } catch {
                #expect(error == .invalidParameter(name))
            }
        }
    }

    @Test func theNumberOfVaultsPerUserIsBounded() throws {
        let harness = try ServiceHarness(vaultLimits: VaultLimits(perUser: 3))
        for _ in 0..<3 { _ = try harness.core.registerVault(.init(vault: UUID().uuidString), peer: alice) }
        do {
            _ = try harness.core.registerVault(.init(vault: UUID().uuidString), peer: alice)
            Issue.record("a fourth vault was registered")
        } catch {
            #expect(error == VarlinkError(.tooManyVaults, ["limit": .int(3)]))
        }
        _ = try harness.core.registerVault(.init(vault: UUID().uuidString), peer: bob)
    }

    /// Alice's vault with a sealed slot, then `file` of its state damaged.
    func sealedVault(damaging file: String) throws -> (ClientVault, String) {
        let vault = ClientVault()
        _ = try core.registerVault(.init(vault: vault.id), peer: alice)
        let slot = try vault.seal(core, as: alice)
        let path = harness.directory + "/state/v1/\(alice.uid)/\(vault.id.lowercased())/" + file
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: path))
        return (vault, slot)
    }

    @Test func aDamagedSecretIsAServiceFailureThatRevealsNoPath() throws {
        let (vault, slot) = try sealedVault(damaging: "secret")
        do {
            _ = try vault.unlock(core, slot: slot, as: alice)
            Issue.record("unlocked with a damaged secret")
        } catch {
            #expect(error.name == "io.fingerlock.Service.ServiceFailure")
            #expect(error.parameters["reason"] == .string("the service cannot use its state; see its log"))
        }
    }

    @Test func aDamagedSlotBindingJudgesNoPasscodeAndCountsNone() throws {
        let (vault, slot) = try sealedVault(damaging: "slot-binding")
        for _ in 0..<6 {
            do {
                _ = try vault.unlock(core, slot: slot, as: alice)
                Issue.record("unlocked with a damaged slot binding")
            } catch {
                #expect(error.name == "io.fingerlock.Service.ServiceFailure")
            }
        }
        #expect(try core.status(.init(vault: vault.id), peer: alice).status.failedPasscodes == 0)
    }

    @Test func stateIsPrivate() throws {
        let vault = ClientVault()
        _ = try core.registerVault(.init(vault: vault.id), peer: alice)
        _ = try core.status(.init(vault: vault.id), peer: alice)
        let root = harness.directory + "/state"
        let vaultDirectory = "\(root)/v1/\(alice.uid)/\(vault.id.lowercased())"
        for directory in [root, root + "/v1", "\(root)/v1/\(alice.uid)", vaultDirectory] {
            #expect(try mode(directory) == 0o700, "\(directory)")
        }
        for file in ["secret", "attempts"] {
            #expect(try mode(vaultDirectory + "/" + file) == 0o600, "\(file)")
        }
        #expect(try FileManager.default.attributesOfItem(atPath: vaultDirectory + "/secret")[.size] as? Int == 32)
    }

    @Test func methodNamesReachTheLogOnlyWhenTheyLookLikeOne() {
        #expect(ServiceCore.loggable("io.fingerlock.Service.Status") == "io.fingerlock.Service.Status")
        #expect(ServiceCore.loggable("x\ninfo fingerlockd: forged") == "(not a method name)")
        #expect(ServiceCore.loggable(String(repeating: "a", count: 200)) == "(not a method name)")
    }

    @Test func shutdownForgetsEveryCachedKey() throws {
        let vault = ClientVault()
        _ = try core.registerVault(.init(vault: vault.id), peer: alice)
        _ = try vault.unlock(core, slot: try vault.seal(core, as: alice), as: alice)
        core.forgetAllKeys()
        #expect(try !core.status(.init(vault: vault.id), peer: alice).status.unlocked)
    }
}

func mode(_ path: String) throws -> Int {
    var info = stat()
    guard lstat(path, &info) == 0 else { throw POSIXError(.ENOENT) }
    return Int(info.st_mode & 0o777)
}
