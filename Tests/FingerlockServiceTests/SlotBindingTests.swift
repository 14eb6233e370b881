import Crypto
import FingerlockProtocol
import FingerlockServiceTestSupport
import FingerlockTestSupport
import Foundation
import Testing

@testable import FingerlockService

/// A proof counts only for the slot the service sealed last, and sealing another slot needs the
/// vault's key: otherwise any process of the user could have a slot sealed for a passcode of its own
/// and "prove" it, to reset the counters, enroll its own finger or forget the vault.
@Suite(.timed) struct SlotBindingTests {
    let harness: ServiceHarness
    var core: ServiceCore { harness.core }
    let alice = ServiceHarness.alice

    init() throws { harness = try ServiceHarness() }

    func registered() throws -> (ClientVault, String) {
        let vault = ClientVault()
        _ = try core.registerVault(.init(vault: vault.id), peer: alice)
        return (vault, try vault.seal(core, as: alice))
    }

    func failedPasscodes(_ vault: ClientVault) throws -> Int {
        try core.status(.init(vault: vault.id), peer: alice).status.failedPasscodes
    }

    @Test func aSlotForAPasscodeOfAnotherProcesssChoiceCannotBeSealed() throws {
        let (vault, _) = try registered()
        var forged = vault
        forged.stretched = Data(repeating: 1, count: 32)
        forged.key = Data(repeating: 2, count: 32)
        let error = #expect(throws: VarlinkError.self) { try forged.seal(core, as: alice) }
        #expect(error?.name == ServiceInterface.ErrorName.keyRequired.qualifiedName)
        // Claiming the real key as "current" without holding it changes nothing.
        let claimed = #expect(throws: VarlinkError.self) {
            try core.sealPasscodeSlot(
                .init(
                    vault: vault.id, stretched: forged.stretched.base64EncodedString(),
                    key: forged.key.base64EncodedString(), associatedData: vault.associatedData.base64EncodedString(),
                    currentKey: Data(repeating: 3, count: 32).base64EncodedString()), peer: alice)
        }
        #expect(claimed?.name == ServiceInterface.ErrorName.keyRequired.qualifiedName)
    }

    @Test func aSlotSealedBeforeTheLastOneIsAWrongPasscodeAndCountedOnceTheNewOneIsInUse() throws {
        let (vault, old) = try registered()
        // A passcode change: the same key under a new stretched passcode, its slot proven as the
        // client does once its transaction put the slot in the vault.
        var changed = vault
        changed.stretched = Data(repeating: 9, count: 32)
        let current = try changed.seal(core, as: alice)
        #expect(try changed.unlock(core, slot: current, as: alice).key == changed.key.base64EncodedString())
        let error = #expect(throws: VarlinkError.self) { try vault.unlock(core, slot: old, as: alice) }
        #expect(error?.name == ServiceInterface.ErrorName.wrongPasscode.qualifiedName)
        #expect(try failedPasscodes(vault) == 1)
        #expect(throws: VarlinkError.self) { try core.forgetVault(vault.proof(slot: old), peer: alice) }
        #expect(try failedPasscodes(vault) == 2)
        #expect(try changed.unlock(core, slot: current, as: alice).key == changed.key.base64EncodedString())
        #expect(try failedPasscodes(vault) == 0)
    }

    /// A passcode change or rekey sealed here, then failed or was killed before its transaction
    /// committed: the vault still holds the slot before, and its passcode still works, as often
    /// as needed; any number of further seals that never commit change nothing of that.
    @Test(arguments: ["passcode change", "rekey"])
    func aChangeThatNeverCommittedLeavesTheSlotInUseWorking(_ change: String) throws {
        let (vault, old) = try registered()
        for attempt in 1...3 {
            if change == "rekey" {
                _ = try rekey(vault, to: UInt8(20 + attempt))
            } else {
                var changed = vault
                changed.stretched = Data(repeating: UInt8(30 + attempt), count: 32)
                _ = try changed.seal(core, as: alice)
            }
            #expect(try vault.unlock(core, slot: old, as: alice).key == vault.key.base64EncodedString())
            #expect(try failedPasscodes(vault) == 0)
        }
        // A change that commits afterwards still works, and then retires the slot before it.
        var changed = vault
        changed.stretched = Data(repeating: 40, count: 32)
        let current = try changed.seal(core, as: alice)
        _ = try changed.unlock(core, slot: current, as: alice)
        #expect(throws: VarlinkError.self) { try vault.unlock(core, slot: old, as: alice) }
    }

    @Test func aBindingWrittenBeforeTheSlotInUseWasKeptReadsAsOneSlot() throws {
        let secret = SymmetricKey(size: .bits256)
        let key = SymmetricKey(size: .bits256)
        let binding = SlotBinding.first(Data([1, 2, 3]), associatedData: Data([4]), key: key, secret: secret)
        let legacy = Array(binding.encoded.prefix(3 * 32))
        #expect(SlotBinding(encoded: legacy) == binding)
        #expect(SlotBinding(encoded: binding.encoded) == binding)
        #expect(SlotBinding(encoded: Array(binding.encoded.prefix(100))) == nil)
        #expect(binding.proves(Data([1, 2, 3]), associatedData: Data([4]), secret: secret) == .sealedLast)
        #expect(binding.proves(Data([1, 2, 3]), associatedData: Data([5]), secret: secret) == nil)
    }

    /// `vault` rekeyed to a new key (the service seals it, proven with the current key).
    func rekey(_ vault: ClientVault, to byte: UInt8) throws -> (ClientVault, String) {
        var rekeyed = vault
        rekeyed.key = Data(repeating: byte, count: 32)
        let sealed = try core.sealPasscodeSlot(
            .init(
                vault: vault.id, stretched: rekeyed.stretched.base64EncodedString(),
                key: rekeyed.key.base64EncodedString(), associatedData: vault.associatedData.base64EncodedString(),
                currentKey: vault.key.base64EncodedString()), peer: alice
        ).sealedSlot
        return (rekeyed, sealed)
    }

    func setPolicy(_ vault: ClientVault, key: Data) throws {
        _ = try core.setVaultPolicy(
            .init(
                vault: vault.id, key: key.base64EncodedString(),
                policy: .init(
                    cacheExpirySeconds: 172_800, reuseWindowSeconds: 300, maxTries: 10, scanTimeoutSeconds: 120,
                    kind: "hardware")), peer: alice)
    }

    @Test func rekeyNeedsTheCurrentKeyAndTheKeyBeforeStaysUsableForACrashedRekey() throws {
        let (vault, _) = try registered()
        var unauthorized = vault
        unauthorized.key = Data(repeating: 5, count: 32)
        #expect(throws: VarlinkError.self) { try unauthorized.seal(core, as: alice) }
        _ = try rekey(vault, to: 5)
        // The rekey's transaction did not commit: the vault still holds the old key, and resealing
        // with it (passcode reset with the recovery key) is allowed.
        let resealed = try vault.seal(core, as: alice)
        #expect(try vault.unlock(core, slot: resealed, as: alice).key == vault.key.base64EncodedString())
    }

    /// The key of a backup from before a rekey: it never sets the policy, and once the new key is
    /// seen in use (told with the policy, as `rekey` does at once, or its slot proven) it seals
    /// nothing either: no slot for a passcode of its holder's choosing, no counters cleared.
    @Test(arguments: ["policy", "passcode"])
    func theKeyBeforeARekeyIsRetiredOnceTheNewOneIsSeenInUse(_ use: String) throws {
        let (old, _) = try registered()
        let (rekeyed, slot) = try rekey(old, to: 6)
        let refused = #expect(throws: VarlinkError.self) { try setPolicy(rekeyed, key: old.key) }
        #expect(refused?.name == ServiceInterface.ErrorName.keyRequired.qualifiedName)
        if use == "policy" {
            try setPolicy(rekeyed, key: rekeyed.key)
        } else {
            _ = try rekeyed.unlock(core, slot: slot, as: alice)
        }
        var forged = old
        forged.stretched = Data(repeating: 7, count: 32)
        let sealError = #expect(throws: VarlinkError.self) { try forged.seal(core, as: alice) }
        #expect(sealError?.name == ServiceInterface.ErrorName.keyRequired.qualifiedName)
        #expect(throws: VarlinkError.self) { try setPolicy(rekeyed, key: old.key) }
        // The user's own slot is still the one bound, and the new key still reseals (passcode change).
        #expect(try rekeyed.unlock(core, slot: slot, as: alice).key == rekeyed.key.base64EncodedString())
        var changed = rekeyed
        changed.stretched = Data(repeating: 8, count: 32)
        _ = try changed.seal(core, as: alice)
    }

    @Test func theBindingIsTheServicesOwnPrivateFileAndGoesWithTheVault() throws {
        let (vault, slot) = try registered()
        let path = harness.directory + "/state/v1/\(alice.uid)/\(vault.id.lowercased())/slot-binding"
        var info = stat()
        #expect(lstat(path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        try core.forgetVault(vault.proof(slot: slot), peer: alice)
        #expect(lstat(path, &info) != 0)
        // Registered again, the vault takes a first seal from anyone holding its key again.
        _ = try core.registerVault(.init(vault: vault.id), peer: alice)
        var other = vault
        other.key = Data(repeating: 4, count: 32)
        _ = try other.seal(core, as: alice)
    }
}
