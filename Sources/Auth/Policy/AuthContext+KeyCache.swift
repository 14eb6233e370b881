import AuthCore
import Crypto
import Foundation
import Vault

/// The cached key: how a passcode unlock leaves the key for a finger to release, and how it is
/// taken back out (always checked against the vault, never trusted).
extension AuthContext {
    /// The vault opened with the cached key, or nil with why there is none (no key cached, no
    /// keyring) — the cases the passcode stands in for; other failures throw.
    func cachedVault() throws -> (vault: Vault?, miss: AuthError?) {
        do {
            return (try openWithCachedKey(), nil)
        } catch let error as AuthError
            where [.noCachedKey, .noKeyring, .systemMode].contains(error.unavailability)
        {
            return (nil, error)
        }
    }

    /// The vault `cachedVault()` opened, else the one the passcode opens.
    func vault(_ cached: (vault: Vault?, miss: AuthError?), orPasscodeFor reason: String) async throws -> Vault {
        if let vault = cached.vault { return vault }
        return try await unlockWithPasscode(reason: reason, why: cached.miss)
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
            opened = try passcodes.open(masterKeyFor: { id in
                storeID = id
                return try cache.load(name: id.uuidString)
            })
        } catch let error as VaultError where error.code == .wrongKey {
            if let storeID { _ = try? cache.invalidate(name: storeID.uuidString) }
            throw AuthError(
                .biometryNotAvailable, "The cached key does not open this vault; it was removed, so the passcode is needed.",
                unavailability: .noCachedKey)
        } catch let error as KeyCacheError {
            throw Self.authError(error)
        } catch {
            throw Self.authError(error)
        }
        guard let vault = opened else { throw noCachedKey }
        return vault
    }

    /// Tells fingerlockd this vault's settings (sealed in it, so only an open vault knows them),
    /// proven with the vault's key: it caches for the vault's cache-expiry and applies the reuse
    /// window, scan timeout and reader kind. `counts` (user mode's) only raise its counters. A
    /// failure is said, not fatal: the service keeps what it was told before (or the defaults).
    func tellServicePolicy(of vault: Vault, counts: AttemptState? = nil) {
        do {
            let storeID = try Self.vaultCall { try vault.storeID }
            let settings = try Self.vaultCall { try SecuritySettings(vault: vault) }
            let kind = try Self.vaultCall { try vault.kind }
            let key = try Self.vaultCall { try vault.exportMasterKey() }
            try systemFingers.setPolicy(
                vault: storeID, key: key, policy: SystemVaultPolicy(settings, kind: kind), counts: counts)
        } catch let error as SystemFingerError {
            interaction.notify(Self.policyNotTold + Self.authError(systemFinger: error).message)
        } catch {
            interaction.notify(Self.policyNotTold + Self.authError(error).message)
        }
    }

    static let policyNotTold = "fingerlockd could not take this vault's settings (it keeps the ones it had, or the defaults): "

    /// Keeps the key after a passcode or recovery-key unlock (or a restore) where a touch can
    /// release it: the vault's own custody decides where.
    func cacheKey(of vault: Vault) throws {
        try custody(of: vault).keep(vault)
    }

    /// Whether an unlock moments ago lets this one skip the touch (`reuse-window`).
    func isWithinReuseWindow(_ vault: Vault, _ settings: SecuritySettings) throws -> Bool {
        let storeID = try Self.vaultCall { try vault.storeID.uuidString }
        return reuseWindow.isOpen(for: storeID, window: settings.reuseWindow)
    }

    /// Opens the reuse window after a passcode unlock or a matching touch.
    func startReuseWindow(_ vault: Vault) {
        guard let storeID = try? vault.storeID.uuidString else { return }
        reuseWindow.open(for: storeID)
    }

    /// Removes this vault's key and reuse window from the user's keyring (best effort: a keyring
    /// that cannot be used holds nothing). System mode leaves nothing there.
    func forgetUserKeyringEntries(of vault: Vault) {
        guard let storeID = try? vault.storeID.uuidString else { return }
        _ = try? dependencies.keyCache.invalidate(name: storeID)
        reuseWindow.close(for: storeID)
    }
}
