import AuthCore
import Fingerprint
import Foundation
public import Vault

/// `status`: what can be told without a touch or the passcode.
extension AuthContext {
    /// The vault's state now. Reads the counters and the key cache; with a cached key, also what is
    /// sealed in the vault (checked like any unlock's key, never trusted). Asks nothing, counts
    /// nothing, starts no reuse window.
    public func status() throws -> VaultStatus {
        let attempts = try Self.vaultCall { try dependencies.attempts.read() }
        let cache = dependencies.keyCache
        var status = VaultStatus(
            setUp: passcodes.hasPasscode, unlocked: false, failedTouches: attempts.failedTouches,
            lockedOut: TouchLedger.isLockedOut(attempts), failedPasscodes: attempts.failedPasscodes,
            passcodeDelayLeft: PasscodeDelays.remaining(in: attempts, now: dependencies.now()),
            mode: vaultMode.rawValue,
            keyCacheUnavailable: cache.unavailableReason())
        try custody.addView(to: &status)
        return status
    }

    /// The notes when the vault's key is cached in this user's keyring (user mode), for what a shell
    /// completion may show: asks nothing, counts nothing, starts no reuse window; nil otherwise.
    public func notesIfCached() throws -> Vault? {
        try custody.openIfCached()
    }

    /// What fingerlockd knows about this vault (for `doctor`): nothing asked, nothing counted.
    public func serviceStatus() throws -> SystemVaultStatus {
        let storeID = try recordedStoreID
        return try systemCall { try systemService.status(vault: storeID) }
    }
}
