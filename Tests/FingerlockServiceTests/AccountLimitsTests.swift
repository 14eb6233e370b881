import FingerlockProtocol
import FingerlockServiceTestSupport
import FingerlockTestSupport
import Foundation
import Testing

@testable import FingerlockService

#if canImport(Glibc)
    import Glibc
#endif

/// The connection and vault limits count accounts (a user with their subordinate uids), not uids,
/// and keep a reserve for accounts that hold nothing.
@Suite(.timed, .timeLimit(.minutes(1)))
struct AccountLimitsTests {
    /// Alice is 1001 with 100000..<100100; Bob 1002 with 200000..<200100; 500000... are unclaimed.
    struct Ranges: UIDAccounts {
        func account(of uid: UInt32) -> UIDAccount {
            switch uid {
            case 100_000..<100_100: .user(1001)
            case 200_000..<200_100: .user(1002)
            case 500_000...: .unclaimed
            default: .user(uid)
            }
        }
    }

    @Test func anAccountsUIDsShareOneShareOfConnectionsAndTheReserveIsForAccountsWithNone() {
        var limits = ServiceLimits()
        limits.maximumConnections = 10
        limits.maximumConnectionsPerUser = 3
        limits.reservedConnections = 4
        let accounts = Ranges()
        var counts = ConnectionCounts()
        // Alice through three of her subordinate uids: three, and no fourth from a fifth uid.
        func admit(_ uid: UInt32) -> Int? { counts.admit(accounts.account(of: uid), limits: limits) }
        for uid: UInt32 in [100_000, 100_001, 100_002] { #expect(admit(uid) == nil) }
        #expect(admit(100_003) == 3)
        #expect(admit(1001) == 3)
        // Bob fills his share too: 6 of the 10, the shared part (10 - 4).
        for uid: UInt32 in [1002, 200_000, 200_050] { #expect(admit(uid) == nil) }
        #expect(counts.total == 6)
        // The unclaimed uids are one account: one connection from the reserve, no second.
        #expect(admit(500_000) == nil)
        #expect(admit(900_000) == 6)
        // Accounts that hold none take the rest, one each.
        for uid: UInt32 in [1003, 1004, 1005] { #expect(counts.admit(.user(uid), limits: limits) == nil) }
        #expect(counts.admit(.user(1006), limits: limits) == 10)
        // A connection that ends gives its place back.
        counts.release(.user(1001))
        #expect(counts.held(by: .user(1001)) == 2)
        #expect(counts.admit(.user(1006), limits: limits) == nil)
        counts.release(.unclaimed)
        #expect(counts.held(by: .unclaimed) == 0)
        #expect(counts.admit(.user(1001), limits: limits) == 6)
    }

    @Test func anAccountsVaultsAreCountedOverAllItsUIDsAndTheServiceHasABoundInAll() throws {
        let harness = try ServiceHarness(
            vaultLimits: VaultLimits(perUser: 3, total: 8, reserved: 2), accounts: Ranges())
        let core = harness.core
        let v1 = harness.directory + "/state/v1"
        func register(_ uid: UInt32) throws(VarlinkError) {
            let peer = PeerCredentials(pid: 1, uid: uid, gid: uid)
            _ = try core.registerVault(.init(vault: UUID().uuidString), peer: peer)
        }
        func refusal(_ uid: UInt32) -> VarlinkError? {
            do { try register(uid) } catch { return error }
            return nil
        }
        // Alice: three vaults over three uids, then none from a fourth uid nor her own.
        let first = UUID().uuidString
        _ = try core.registerVault(.init(vault: first), peer: PeerCredentials(pid: 1, uid: 1001, gid: 1001))
        for uid: UInt32 in [100_000, 100_001] { try register(uid) }
        #expect(refusal(100_002) == VarlinkError(.tooManyVaults, ["limit": .int(3)]))
        #expect(refusal(1001) == VarlinkError(.tooManyVaults, ["limit": .int(3)]))
        // A refused uid leaves no directory behind.
        #expect(!FileManager.default.fileExists(atPath: v1 + "/100002"))
        // Bob: three. That fills the service's shared part (8 - 2).
        for uid: UInt32 in [200_000, 200_001, 1002] { try register(uid) }
        // The unclaimed uids: one vault from the reserve, as one account.
        try register(500_000)
        #expect(refusal(600_000) == VarlinkError(.tooManyVaults, ["limit": .int(6)]))
        // An account with none takes the last; then the service is full for everyone.
        try register(1003)
        #expect(refusal(1004) == VarlinkError(.tooManyVaults, ["limit": .int(8)]))
        // Registering a vault the uid already has is no new vault: still answered.
        #expect(
            try core.registerVault(.init(vault: first), peer: PeerCredentials(pid: 1, uid: 1001, gid: 1001)).created
                == false)
    }

    @Test func forgettingAUIDsLastVaultRemovesItsDirectory() throws {
        let harness = try ServiceHarness(accounts: Ranges())
        let peer = PeerCredentials(pid: 1, uid: 100_000, gid: 100_000)
        let vault = ClientVault()
        _ = try harness.core.registerVault(.init(vault: vault.id), peer: peer)
        let slot = try vault.seal(harness.core, as: peer)
        let directory = harness.directory + "/state/v1/100000"
        #expect(FileManager.default.fileExists(atPath: directory))
        try harness.core.forgetVault(vault.proof(slot: slot), peer: peer)
        #expect(!FileManager.default.fileExists(atPath: directory))
    }
}
