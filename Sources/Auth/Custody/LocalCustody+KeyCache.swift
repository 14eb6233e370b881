import AuthCore
import Foundation
import Vault

/// User mode's cached key: taken out of the keyring only here, for a user-mode vault, and always
/// checked against the vault, never trusted.
extension LocalCustody {
    /// The vault opened with the cached key, or nil with why there is none (no key cached, no
    /// keyring) — the cases the passcode stands in for; other failures throw.
    func cachedVault() throws -> (vault: Vault?, miss: AuthError?) {
        do {
            return (try openWithCachedKey(), nil)
        } catch let error as AuthError
            where [.noCachedKey, .noKeyring].contains(error.unavailability)
        {
            return (nil, error)
        }
    }

    /// The vault when the keyring holds its key (checked, as every cached key); nil without one.
    func openIfCached() throws -> Vault? {
        guard environment.passcodes.hasPasscode, dependencies.keyCache.unavailableReason() == nil else { return nil }
        return try cachedVault().vault
    }

    /// The vault `cachedVault()` opened, else the one the passcode opens.
    func vault(_ cached: (vault: Vault?, miss: AuthError?), orPasscodeFor reason: String) async throws -> Vault {
        if let vault = cached.vault { return vault }
        return try await PasscodeUnlock(environment).unlockWithPasscode(reason: reason, why: cached.miss)
    }

    /// The vault opened with the cached key. A key that does not open it (planted, or left by a
    /// vault restored or rekeyed since) is removed and never used.
    func openWithCachedKey() throws -> Vault {
        let cache = dependencies.keyCache
        if let reason = cache.unavailableReason() {
            throw AuthError(.biometryNotAvailable, reason, unavailability: .noKeyring)
        }
        // One database open: the store id that names the cache entry is read in the same pass that
        // reads the key check and the slots.
        var storeID: UUID?
        let opened: Vault?
        do {
            opened = try environment.passcodes.open(masterKeyFor: { id in
                storeID = id
                return try cache.load(name: id.uuidString)
            })
        } catch let error as VaultError where error.code == .wrongKey {
            if let storeID { _ = try? cache.invalidate(name: storeID.uuidString) }
            throw AuthError(
                .biometryNotAvailable, "The cached key does not open this vault; it was removed, so the passcode is needed.",
                unavailability: .noCachedKey)
        } catch let error as KeyCacheError {
            throw AuthError.from(error)
        } catch {
            throw AuthError.from(error)
        }
        guard let vault = opened else { throw AuthError.noCachedKey }
        return vault
    }
}
