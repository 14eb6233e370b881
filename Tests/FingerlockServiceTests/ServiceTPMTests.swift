import Crypto
import FingerlockProtocol
import FingerlockServiceTestSupport
import FingerlockTestSupport
import Foundation
import Testing
import TrustedPlatform

@testable import FingerlockService

/// fingerlockd's passcode slots bound to its TPM (swtpm), in process: the service counts first,
/// then the TPM counts; the service's state is useless on another TPM.
@Suite(.timed, .timeLimit(.minutes(2)))
struct ServiceTPMTests {
    let swtpm: SoftwareTPM
    let harness: ServiceHarness
    var core: ServiceCore { harness.core }
    let alice = ServiceHarness.alice

    init() throws {
        swtpm = try SoftwareTPM()
        try swtpm.setDictionaryParameters(maximumTries: 32, interval: 600, recovery: 600)
        harness = try ServiceHarness(tpm: ESAPIModule(tcti: swtpm.tcti))
    }

    func sealBound(
        _ vault: ClientVault, pcr7: Bool = false, core: ServiceCore? = nil, as peer: PeerCredentials = ServiceHarness.alice
    ) throws -> String {
        try (core ?? self.core).sealPasscodeSlot(
            .init(
                vault: vault.id, stretched: vault.stretched.base64EncodedString(), key: vault.key.base64EncodedString(),
                associatedData: vault.associatedData.base64EncodedString(), tpm: .init(pcr7: pcr7)), peer: peer
        ).sealedSlot
    }

    func refusal(_ body: () throws -> Void) -> VarlinkError? {
        do {
            try body()
            return nil
        } catch {
            return error as? VarlinkError
        }
    }

    @Test func aBoundSlotOpensForTheRightPasscodeAndBothTheServiceAndTheTPMCountAWrongOne() throws {
        defer { swtpm.stop() }
        let vault = ClientVault()
        _ = try core.registerVault(.init(vault: vault.id), peer: alice)
        let slot = try sealBound(vault)
        #expect(TPMBoundSlot.isBound(try #require(Data(base64Encoded: slot))))
        #expect(try vault.unlock(core, slot: slot, as: alice).key == vault.key.base64EncodedString())
        let wrong = refusal { _ = try vault.unlock(core, slot: slot, as: alice, stretched: ClientVault.wrong) }
        #expect(wrong?.name == ServiceInterface.ErrorName.wrongPasscode.qualifiedName)
        #expect(try core.status(.init(vault: vault.id), peer: alice).status.failedPasscodes == 1)
        #expect(try swtpm.lockoutCounter() == 1)
    }

    @Test func theServicesDelayRefusesBeforeTheTPMIsAsked() throws {
        defer { swtpm.stop() }
        // A share of 8 failures (a quarter of the half of 64 the service may spend): the service's
        // own delay, after the 5th, comes first.
        try swtpm.setDictionaryParameters(maximumTries: 64, interval: 600, recovery: 600)
        let vault = ClientVault()
        _ = try core.registerVault(.init(vault: vault.id), peer: alice)
        let slot = try sealBound(vault)
        for _ in 1...5 { _ = refusal { _ = try vault.unlock(core, slot: slot, as: alice, stretched: ClientVault.wrong) } }
        #expect(try swtpm.lockoutCounter() == 5)
        let delayed = refusal { _ = try vault.unlock(core, slot: slot, as: alice) }
        #expect(delayed?.name == ServiceInterface.ErrorName.passcodeDelayed.qualifiedName)
        #expect(try swtpm.lockoutCounter() == 5)
    }

    @Test func theServicesStateCopiedBesideAnotherTPMOpensNothingAndCountsNothing() throws {
        defer { swtpm.stop() }
        let vault = ClientVault()
        _ = try core.registerVault(.init(vault: vault.id), peer: alice)
        let slot = try sealBound(vault)
        let other = try SoftwareTPM()
        defer { other.stop() }
        // The whole state directory, secrets and bindings included, on a machine with another TPM.
        let copy = try TemporaryDirectory.make() + "/state"
        try FileManager.default.copyItem(atPath: harness.directory + "/state", toPath: copy)
        let elsewhere = try ServiceHarness(tpm: ESAPIModule(tcti: other.tcti), stateDirectory: copy)
        let refused = refusal { _ = try vault.unlock(elsewhere.core, slot: slot, as: alice) }
        #expect(refused?.name == ServiceInterface.ErrorName.tpmRefused.qualifiedName)
        #expect(refused?.parameters["problem"] == .string("foreignObject"))
        #expect(try elsewhere.core.status(.init(vault: vault.id), peer: alice).status.failedPasscodes == 0)
        #expect(try other.lockoutCounter() == 0)
        // And the TPM alone (this machine, the vault's slot, without the passcode) opens nothing either.
        #expect(refusal { _ = try vault.unlock(core, slot: slot, as: alice, stretched: ClientVault.wrong) } != nil)
    }

    @Test func oneFailureFromTheTPMsLimitTheServiceDoesNotAskIt() throws {
        defer { swtpm.stop() }
        try swtpm.setDictionaryParameters(maximumTries: 3, interval: 600, recovery: 600)
        let vault = ClientVault()
        _ = try core.registerVault(.init(vault: vault.id), peer: alice)
        let slot = try sealBound(vault)
        // Another program's failures (no caller of the service could spend that many).
        for _ in 1...2 { try swtpm.failAnAuthorization() }
        let refused = refusal { _ = try vault.unlock(core, slot: slot, as: alice) }
        #expect(refused?.name == ServiceInterface.ErrorName.tpmRefused.qualifiedName)
        #expect(refused?.parameters["problem"] == .string("nearLockout"))
        #expect(refused?.int("secondsLeft") == 600)
        #expect(try swtpm.lockoutCounter() == 2)
        // Not judged, so not counted by the service either.
        #expect(try core.status(.init(vault: vault.id), peer: alice).status.failedPasscodes == 0)
    }

    @Test func withoutItsTPMTheServiceRefusesToSealABoundSlotAndSaysWhy() throws {
        defer { swtpm.stop() }
        let absent = try ServiceHarness(tpm: ESAPIModule(tcti: "device:/dev/tpmrm-absent"))
        let vault = ClientVault()
        _ = try absent.core.registerVault(.init(vault: vault.id), peer: alice)
        let refused = refusal { _ = try sealBound(vault, core: absent.core) }
        #expect(refused?.name == ServiceInterface.ErrorName.tpmRefused.qualifiedName)
        #expect(refused?.parameters["problem"] == .string("unreachable"))
        // Unbound sealing still works there.
        #expect(try vault.seal(absent.core, as: alice).isEmpty == false)
    }
}
