import AuthCore
import Foundation
import Vault

/// The key after a passcode unlock: kept by the vault's custody, and told to fingerlockd with the
/// vault's settings; the reuse window's markers.
extension AuthEnvironment {
    /// Tells fingerlockd this vault's settings (sealed in it, so only an open vault knows them),
    /// proven with the vault's key: it caches for the vault's cache-expiry and applies the reuse
    /// window, scan timeout and reader kind. `counts` (user mode's) only raise its counters. A
    /// failure is said, not fatal: the service keeps what it was told before (or the defaults).
    func tellServicePolicy(of vault: Vault, counts: AttemptState? = nil) {
        do {
            let storeID = try AuthError.mapped { try vault.storeID }
            let settings = try AuthError.mapped { try SecuritySettings(vault: vault) }
            let kind = try AuthError.mapped { try vault.kind }
            let key = try AuthError.mapped { try vault.exportMasterKey() }
            try systemService.setPolicy(
                vault: storeID, key: key, policy: SystemVaultPolicy(settings, kind: kind), counts: counts)
        } catch let error as SystemServiceError {
            interaction.notify(Self.policyNotTold + AuthError.from(systemService: error).message)
        } catch {
            interaction.notify(Self.policyNotTold + AuthError.from(error).message)
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
        let storeID = try AuthError.mapped { try vault.storeID.uuidString }
        return reuseWindow.isOpen(for: storeID, window: settings.reuseWindow)
    }

    /// Opens the reuse window after a passcode unlock or a matching touch.
    func startReuseWindow(_ vault: Vault) {
        guard let storeID = try? vault.storeID.uuidString else { return }
        reuseWindow.open(for: storeID)
    }

    /// A passcode (or the vault's creation with one) proved the user now: within `reuse-window`,
    /// `enroll` takes the key this left instead of asking again, as a touch is skipped for the others.
    func startPasscodeWindow(_ vault: Vault) {
        guard let storeID = try? vault.storeID.uuidString else { return }
        passcodeWindow.open(for: storeID)
    }

    /// Whether the passcode was given within the reuse window (a touch does not count).
    func isWithinPasscodeWindow(_ vault: Vault) throws -> Bool {
        let storeID = try AuthError.mapped { try vault.storeID.uuidString }
        let settings = try AuthError.mapped { try SecuritySettings(vault: vault) }
        return passcodeWindow.isOpen(for: storeID, window: settings.reuseWindow)
    }

    /// Removes this vault's key and reuse window from the user's keyring (best effort: a keyring
    /// that cannot be used holds nothing). System mode leaves nothing there.
    func forgetUserKeyringEntries(of vault: Vault) {
        guard let storeID = try? vault.storeID.uuidString else { return }
        _ = try? dependencies.keyCache.invalidate(name: storeID)
        reuseWindow.close(for: storeID)
        passcodeWindow.close(for: storeID)
    }
}
