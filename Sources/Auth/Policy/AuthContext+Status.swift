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
        if status.setUp, isSystemMode {
            addServiceView(to: &status)
            return status
        }
        guard status.setUp, status.keyCacheUnavailable == nil else { return status }
        let (opened, _) = try cachedVault()
        guard let vault = opened else { return status }
        defer { vault.close() }
        let storeID = try Self.vaultCall { try vault.storeID.uuidString }
        status.unlocked = true
        status.keyExpiresIn = cache.remainingLifetime(name: storeID)
        let settings = try Self.vaultCall { try SecuritySettings(vault: vault) }
        if !status.lockedOut { status.reuseWindowLeft = reuseWindow.left(for: storeID, window: settings.reuseWindow) }
        status.kind = try Self.vaultCall { try vault.kind }
        status.enrolledFingers = try Self.vaultCall {
            try VaultPrintStore(vault: vault).allPrints().map { VaultStatus.EnrolledFinger(finger: $0.finger, reader: $0.reader) }
        }
        return status
    }

    /// What fingerlockd knows about this vault (for `doctor`): nothing asked, nothing counted.
    public func serviceStatus() throws -> SystemVaultStatus {
        try Self.vaultCall { try passcodes.serviceStatus() }
    }

    /// System mode: the key, the counters and the fingers that apply are fingerlockd's (the user's
    /// keyring and attempt file play no part). A service that cannot be asked is reported, not
    /// thrown: `status` still tells what it can.
    private func addServiceView(to status: inout VaultStatus) {
        status.keyCacheUnavailable = nil
        status.failedTouches = 0
        status.lockedOut = false
        do {
            let known = try passcodes.serviceStatus()
            status.service = .answered(known)
            status.unlocked = known.unlocked
            status.keyExpiresIn = known.unlocked ? .seconds(known.unlockedSeconds) : nil
            status.failedTouches = known.failedTouches
            status.lockedOut = known.touchLockedOut
            // The window the service keeps; never the user's keyring's, which system mode ignores.
            status.reuseWindowLeft = known.reuseSeconds.flatMap { $0 > 0 ? .seconds($0) : nil }
            status.failedPasscodes = known.failedPasscodes
            status.passcodeDelayLeft = known.delaySeconds > 0 ? .seconds(known.delaySeconds) : nil
            // The service tells its owner which fingers it keeps without the passcode.
            status.enrolledFingers = try? systemEnrolledPrints().map {
                VaultStatus.EnrolledFinger(finger: $0.finger, reader: $0.reader)
            }
        } catch {
            status.service = .unreachable(error.message)
        }
    }
}
