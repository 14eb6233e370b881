import FingerlockServiceTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

extension RealUsersTests {
    /// F4: the cache lifetime is the service's to set at the unlock. A raw client of Alice's that
    /// asks for 48 h and disconnects (no LimitCachedKey, no CLI) leaves the key for the vault's
    /// cache-expiry at most — the default before the vault told the service, then its own. Only
    /// Alice, holding the vault key, can tell it; Bob cannot even reach her vault.
    @Test func theCacheLifeIsSetAtTheUnlockAndOnlyTheOwnerWithTheKeyChangesIt() async throws {
        try await Self.ensureUsers()
        let setup = try Setup()
        let service = try await setup.startService()
        defer {
            service.terminateBlocking()
            try? FileManager.default.removeItem(atPath: setup.base)
        }
        let vault = try await setup.sealedVault(as: Self.alice)
        func unlockedSeconds() async throws -> Int {
            let status = try #require(
                try await setup.call(as: Self.alice, "Status", ["vault": vault.id]).parameters["status"] as? [String: Any])
            return try #require(status["unlockedSeconds"] as? Int)
        }

        let first = try await setup.call(as: Self.alice, "UnlockWithPasscode", vault.unlock(cache: 48 * 3600))
        #expect(first.parameters["cachedSeconds"] as? Int == 8 * 3600)
        #expect(try await unlockedSeconds() <= 8 * 3600)

        let policy: [String: Any] = [
            "cacheExpirySeconds": 120, "reuseWindowSeconds": 0, "maxTries": 3, "scanTimeoutSeconds": 30, "kind": "test",
        ]
        func setPolicy(as user: String, key: Data) async throws -> [String: Any] {
            try await setup.call(
                as: user, "SetVaultPolicy", ["vault": vault.id, "key": key.base64EncodedString(), "policy": policy])
        }
        #expect(try await setPolicy(as: Self.bob, key: vault.key).errorName == "io.fingerlock.Service.VaultNotRegistered")
        #expect(
            try await setPolicy(as: Self.alice, key: Data(repeating: 3, count: 32)).errorName
                == "io.fingerlock.Service.KeyRequired")
        #expect(try await unlockedSeconds() > 120)
        #expect(try await setPolicy(as: Self.alice, key: vault.key).parameters["cachedSeconds"] as? Int == 120)
        #expect(try await unlockedSeconds() <= 120)

        // The next raw unlock, from a new process that asks for 48 h and goes away, gets 2 min.
        let again = try await setup.call(as: Self.alice, "UnlockWithPasscode", vault.unlock(cache: 48 * 3600))
        #expect(again.parameters["cachedSeconds"] as? Int == 120)
        #expect(try await unlockedSeconds() <= 120)

        // The policy is kept 0600 where no user reaches it.
        let path = setup.state + "/v1/\(Self.uid(Self.alice))/\(vault.id.lowercased())/policy"
        #expect(try await !setup.can(Self.alice, "cat \(path)"))
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o600)
    }
}

extension RealUsersTests.Setup {
    /// A vault of `user`'s registered by a raw client, with a passcode slot sealed for its key.
    func sealedVault(as user: String) async throws -> RealUsersTests.Vault {
        var vault = RealUsersTests.Vault()
        #expect(try await call(as: user, "RegisterVault", ["vault": vault.id]).parameters["created"] as? Bool == true)
        vault.slot = try #require(
            try await call(
                as: user, "SealPasscodeSlot",
                [
                    "vault": vault.id, "stretched": vault.stretched.base64EncodedString(),
                    "key": vault.key.base64EncodedString(), "associatedData": vault.ad.base64EncodedString(),
                ]
            ).parameters["sealedSlot"] as? String)
        return vault
    }
}
