import AuthCore
import Fingerprint
import Foundation
public import Vault

/// `status` and `doctor`'s look into the vault: what can be told without a touch or the passcode.
/// Asks nothing, counts nothing, starts no reuse window.
public struct VaultStatusReport: Sendable {
    let environment: AuthEnvironment
    /// The vault's custody, held by the environment for the command.
    var custody: any KeyCustody { environment.custody }

    public init(_ environment: AuthEnvironment) { self.environment = environment }

    /// The vault's state now. Reads the counters and the key cache; with a cached key, also what is
    /// sealed in the vault (checked like any unlock's key, never trusted).
    public func status() throws -> VaultStatus {
        let dependencies = environment.dependencies
        let attempts = try AuthError.mapped { try dependencies.attempts.read() }
        let cache = dependencies.keyCache
        var status = VaultStatus(
            setUp: environment.passcodes.hasPasscode, unlocked: false, failedTouches: attempts.failedTouches,
            lockedOut: TouchLedger.isLockedOut(attempts), failedPasscodes: attempts.failedPasscodes,
            passcodeDelayLeft: PasscodeDelays.remaining(in: attempts, now: dependencies.now()),
            mode: environment.vaultMode.rawValue,
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
        let storeID = try environment.recordedStoreID
        return try environment.systemCall { try environment.systemService.status(vault: storeID) }
    }

    /// `doctor`: whether a passcode is set and, when a key is cached, which fingers are enrolled.
    /// The cached key is checked like any unlock's (a wrong one is removed, never used). Never a
    /// prompt, never a touch.
    public func inspectSetup() throws -> SetupStatus {
        guard environment.passcodes.hasPasscode else { return SetupStatus(passcodeSet: false, enrolledFingers: []) }
        return try custody.inspectFingers()
    }
}
