import FingerlockProtocol
import FingerlockServiceTestSupport
import FingerlockTestSupport
import Foundation
import Synchronization
import Testing
import TrustedPlatform

@testable import FingerlockService

/// Issue 38 (H4), in process on swtpm: the TPM's dictionary-attack counter is the machine's, so the
/// service lets no account (a login with its subordinate uids) spend another's part of it. Bob tries
/// every way he has — many vaults, his subordinate uids, clients side by side, a restarted service —
/// and Alice's right passcode still opens.
@Suite(.timed, .timeLimit(.minutes(2)))
struct ServiceTPMShareTests {
    let swtpm: SoftwareTPM
    let alice = ServiceHarness.alice
    /// Bob's own uid and two of his subordinate ones (`AccountLimitsTests.Ranges`).
    let bobs = [
        ServiceHarness.bob, PeerCredentials(pid: 201, uid: 200_000, gid: 200_000),
        PeerCredentials(pid: 202, uid: 200_001, gid: 200_001),
    ]

    init() throws {
        swtpm = try SoftwareTPM()
        // swtpm's factory defaults, spelled out: 3 failures, one forgotten per 1000 s.
        try swtpm.setDictionaryParameters(maximumTries: 3, interval: 1000, recovery: 1000)
    }

    func harness(stateDirectory: String? = nil) throws -> ServiceHarness {
        try ServiceHarness(
            accounts: AccountLimitsTests.Ranges(), tpm: ESAPIModule(tcti: swtpm.tcti), stateDirectory: stateDirectory)
    }

    /// A registered vault of `peer`'s with a slot bound to the TPM.
    func boundVault(_ core: ServiceCore, as peer: PeerCredentials) throws -> (ClientVault, String) {
        let vault = ClientVault()
        _ = try core.registerVault(.init(vault: vault.id), peer: peer)
        let slot = try core.sealPasscodeSlot(
            .init(
                vault: vault.id, stretched: vault.stretched.base64EncodedString(), key: vault.key.base64EncodedString(),
                associatedData: vault.associatedData.base64EncodedString(), tpm: .init(pcr7: false)), peer: peer
        ).sealedSlot
        return (vault, slot)
    }

    static func string(_ error: VarlinkError?, _ key: String) -> String? {
        if case .string(let value) = error?.parameters[key] { value } else { nil }
    }

    func refusal(_ body: () throws -> Void) -> VarlinkError? {
        do {
            try body()
            return nil
        } catch {
            return error as? VarlinkError
        }
    }

    @Test func anotherAccountsWrongPasscodesNeverMakeARightOneFail() throws {
        defer { swtpm.stop() }
        let harness = try harness()
        let core = harness.core
        let (aliceVault, aliceSlot) = try boundVault(core, as: alice)
        let bobsVaults = try bobs.map { peer in (peer, try boundVault(core, as: peer)) }
        // Bob's nine wrong passcodes at once: three clients on each of his three vaults.
        let outcomes = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 9) { index in
            let (peer, (vault, slot)) = bobsVaults[index % 3]
            let outcome = refusal { _ = try vault.unlock(core, slot: slot, as: peer, stretched: ClientVault.wrong) }
            outcomes.withLock { $0.append(outcome?.name ?? "opened") }
        }
        let all = outcomes.withLock { $0 }
        #expect(all.count(where: { $0 == ServiceInterface.ErrorName.wrongPasscode.qualifiedName }) == 1, "\(all)")
        #expect(all.count(where: { $0 == ServiceInterface.ErrorName.tpmRefused.qualifiedName }) == 8, "\(all)")
        #expect(try swtpm.lockoutCounter() == 1)
        // Alice's right passcode opens.
        #expect(try aliceVault.unlock(core, slot: aliceSlot, as: alice).key == aliceVault.key.base64EncodedString())
        // Bob's next try, on a vault he registers now, is refused at once with the real wait, and counts nothing.
        let (peer, _) = bobsVaults[1]
        let (fresh, freshSlot) = try boundVault(core, as: peer)
        let refused = refusal { _ = try fresh.unlock(core, slot: freshSlot, as: peer, stretched: ClientVault.wrong) }
        #expect(refused?.name == ServiceInterface.ErrorName.tpmRefused.qualifiedName)
        #expect(refused?.parameters["problem"] == .string("shareSpent"))
        #expect(refused?.int("secondsLeft") == 1000)
        #expect(try swtpm.lockoutCounter() == 1)
        #expect(try core.status(.init(vault: fresh.id), peer: peer).status.failedPasscodes == 0)
    }

    @Test func aRestartedServiceStillKnowsWhoseFailuresTheTPMCounts() throws {
        defer { swtpm.stop() }
        let first = try harness()
        let (aliceVault, aliceSlot) = try boundVault(first.core, as: alice)
        let (bobVault, bobSlot) = try boundVault(first.core, as: bobs[0])
        #expect(
            refusal { _ = try bobVault.unlock(first.core, slot: bobSlot, as: bobs[0], stretched: ClientVault.wrong) }?.name
                == ServiceInterface.ErrorName.wrongPasscode.qualifiedName)
        // The same state directory, a new service.
        let restarted = try harness(stateDirectory: first.directory + "/state")
        for _ in 1...3 {
            let refused = refusal {
                _ = try bobVault.unlock(restarted.core, slot: bobSlot, as: bobs[0], stretched: ClientVault.wrong)
            }
            #expect(refused?.parameters["problem"] == .string("shareSpent"))
        }
        #expect(try swtpm.lockoutCounter() == 1)
        #expect(try aliceVault.unlock(restarted.core, slot: aliceSlot, as: alice).key == aliceVault.key.base64EncodedString())
    }

    @Test func aShareComesBackWhenTheTPMForgetsTheFailureAndOnlyThen() throws {
        defer { swtpm.stop() }
        let harness = try harness()
        let core = harness.core
        let (vault, slot) = try boundVault(core, as: alice)
        #expect(
            refusal { _ = try vault.unlock(core, slot: slot, as: alice, stretched: ClientVault.wrong) }?.name
                == ServiceInterface.ErrorName.wrongPasscode.qualifiedName)
        // Her own right passcode waits too: the TPM is not asked for her while it counts her failure.
        let waiting = refusal { _ = try vault.unlock(core, slot: slot, as: alice) }
        #expect(waiting?.parameters["problem"] == .string("shareSpent"))
        #expect(Self.string(waiting, "message")?.contains("try again in about 17 min") == true, "\(String(describing: waiting))")
        // The TPM's own recovery (its owner resets the counter): her share is back.
        try swtpm.tool(["tpm2_dictionarylockout", "-c"])
        #expect(try vault.unlock(core, slot: slot, as: alice).key == vault.key.base64EncodedString())
        #expect(
            refusal { _ = try vault.unlock(core, slot: slot, as: alice, stretched: ClientVault.wrong) }?.name
                == ServiceInterface.ErrorName.wrongPasscode.qualifiedName)
        #expect(try swtpm.lockoutCounter() == 1)
    }

    @Test func aRefusalBeforeAnyAuthorizationChargesNothing() throws {
        defer { swtpm.stop() }
        let harness = try harness()
        let core = harness.core
        let vault = ClientVault()
        _ = try core.registerVault(.init(vault: vault.id), peer: alice)
        let slot = try core.sealPasscodeSlot(
            .init(
                vault: vault.id, stretched: vault.stretched.base64EncodedString(), key: vault.key.base64EncodedString(),
                associatedData: vault.associatedData.base64EncodedString(), tpm: .init(pcr7: true)), peer: alice
        ).sealedSlot
        // Another program's failure on the counter, so a charge left behind would still stand.
        try swtpm.failAnAuthorization()
        try swtpm.extendPCR7()
        for _ in 1...2 {
            let refused = refusal { _ = try vault.unlock(core, slot: slot, as: alice) }
            #expect(refused?.parameters["problem"] == .string("policyMismatch"), "\(String(describing: refused))")
        }
        #expect(try swtpm.lockoutCounter() == 1)
    }

    @Test func aTPMThatForgetsByItselfGivesTheShareBackAfterItsInterval() async throws {
        defer { swtpm.stop() }
        try swtpm.setDictionaryParameters(maximumTries: 3, interval: 2, recovery: 2)
        let harness = try harness()
        let core = harness.core
        let (vault, slot) = try boundVault(core, as: bobs[0])
        _ = refusal { _ = try vault.unlock(core, slot: slot, as: bobs[0], stretched: ClientVault.wrong) }
        let refused = refusal { _ = try vault.unlock(core, slot: slot, as: bobs[0]) }
        #expect(refused?.int("secondsLeft") == 2)
        // One interval and a margin: the TPM has forgotten the failure, and the service sees it.
        try await Task.sleep(for: .seconds(3.5))
        #expect(try swtpm.lockoutCounter() == 0)
        #expect(try vault.unlock(core, slot: slot, as: bobs[0]).key == vault.key.base64EncodedString())
    }
}
