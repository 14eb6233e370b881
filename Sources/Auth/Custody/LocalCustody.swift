import AuthCore
import Fingerprint
import Foundation
import TrustedPlatform
import Vault

/// User mode's custody: the key after the passcode, passcode attempts, fingers, status and lock.
extension LocalCustody {
    // MARK: The key after the passcode

    func openWithoutTouch(reason: String) async throws -> Vault {
        try await vault(try cachedVault(), orPasscodeFor: reason)
    }

    /// Caches the key in the keyring for the vault's cache-expiry and starts the reuse window;
    /// without a keyring, says why once.
    func passcodeProven(_ vault: Vault) {
        environment.startPasscodeWindow(vault)
    }

    func keep(_ vault: Vault) throws {
        let cache = dependencies.keyCache
        if let reason = cache.unavailableReason() {
            interaction.notify(reason)
            return
        }
        let settings = try AuthError.mapped { try SecuritySettings(vault: vault) }
        do {
            let storeID = try AuthError.mapped { try vault.storeID.uuidString }
            try cache.store(try AuthError.mapped { try vault.exportMasterKey() }, name: storeID, lifetime: settings.cacheExpiry)
        } catch let error as KeyCacheError {
            interaction.notify(error.message + " The fingerprint will not unlock until the next passcode.")
            return
        }
        environment.startReuseWindow(vault)
    }

    func rekeyed(_ vault: Vault) throws {
        environment.forgetUserKeyringEntries(of: vault)
        try keep(vault)
    }

    /// The key was cached for the old expiry a moment ago: cached again for the new one.
    func settingChanged(_ key: SecuritySettings.Key, in vault: Vault) throws {
        if key == .cacheExpiry || key == .reuseWindow { try keep(vault) }
    }

    var keyring: (any KeyCache)? { dependencies.keyCache }

    // MARK: The passcode slot

    /// The vault's own: the passcode alone opens an unbound slot; a bound one needs the TPM too.
    var passcodeSealer: any PasscodeSlotSealer { passcodeSealer(binding: nil) }

    var tpmAskedHere: (any TrustedPlatformModule)? { dependencies.tpm }

    func passcodeSealer(binding: TPMBinding?) -> any PasscodeSlotSealer {
        TPMBoundSealer(inner: VaultPasscodeSealer(), tpm: dependencies.tpm, binding: binding)
    }

    // MARK: Passcode attempts

    func refuseDuringPasscodeDelay() throws {
        if let delay = try AuthError.mapped({ try environment.passcodeLedger.delayLeft() }) {
            throw AuthError.passcodeDelayed(delay)
        }
    }

    /// For a passcode bound to the TPM: nobody types a passcode the TPM would not be asked with (one
    /// failure from its lockout, or in it). The recovery key needs no TPM and is never refused so.
    func refuseWhileTheTPMWouldNotBeAsked() throws {
        if let claimed = environment.passcodes.claimedPasscodeSlot(), TPMBoundSlot.isBound(claimed),
            let refusal = (try? dependencies.tpm.lockoutState())?.refusal
        {
            throw AuthError(.passcodeDelay, refusal.message + " " + TPMBoundSealer.recoveryKeyNote)
        }
    }

    func passcodeLedger(for credentials: [VaultCredential]) -> PasscodeLedger? { environment.passcodeLedger }

    func opened(_ vault: Vault, with credential: VaultCredential) {}

    /// A sealer that said more than "wrong passcode" (the TPM's count) is quoted.
    func refusal(_ error: VaultError, for credential: VaultCredential) -> String? {
        guard error.code == .wrongPasscode, case .passcode = credential, error.message != "Wrong passcode." else { return nil }
        return error.message
    }

    // MARK: Fingers

    /// The enrolled fingers, read with the cached key or else the passcode (`fingers`): fprintd's
    /// accepted set, or the templates sealed in the vault.
    func enrolledFingers() async throws -> [Enrollment.ListedFinger] {
        let vault = try await openWithoutTouch(reason: "read the enrolled fingers")
        defer { vault.close() }
        return try Self.listed(in: vault)
    }

    /// fprintd's fingers as the vault accepted them; fprintd does not say when they were enrolled.
    static func listed(_ accepted: AcceptedFingers) -> [Enrollment.ListedFinger] {
        let reader = FprintdDevice.identity(named: accepted.device)
        return accepted.fingers.map { Enrollment.ListedFinger(finger: $0, reader: reader, enrolled: nil) }
    }

    func inspectFingers() throws -> SetupStatus {
        let (vault, _) = try cachedVault()
        guard let vault else { return SetupStatus(passcodeSet: true, enrolledFingers: [], fingersUnknown: true) }
        defer { vault.close() }
        if let accepted = try FprintdAcceptance.read(vault) {
            return SetupStatus(
                passcodeSet: true, enrolledFingers: Self.listed(accepted).map { "\($0.finger) on \($0.reader)" },
                acceptedFprintdFingers: accepted)
        }
        let prints = try VaultPrintStore(vault: vault).allPrints()
        return SetupStatus(passcodeSet: true, enrolledFingers: prints.map { "\($0.finger) on \($0.reader)" })
    }

    // MARK: Restore

    /// The passcode is simply tried on the backup's own slot: nothing counts it.
    func passcodeAfterRestore(_ passcode: String, current: Vault, backup: Vault) -> RestorePlan.Secret {
        backup.opens(with: .passcode(passcode)) ? .current : .backups
    }

    /// The vault's own sealer is always at hand.
    func problemAfterRestore(of backup: Vault) -> String? { nil }

    // MARK: Status and lock

    /// With a cached key, also what is sealed in the vault (checked like any unlock's key).
    func addView(to status: inout VaultStatus) throws {
        let cache = dependencies.keyCache
        guard status.setUp, status.keyCacheUnavailable == nil else { return }
        let (opened, _) = try cachedVault()
        guard let vault = opened else { return }
        defer { vault.close() }
        let storeID = try AuthError.mapped { try vault.storeID.uuidString }
        status.unlocked = true
        status.keyExpiresIn = cache.remainingLifetime(name: storeID)
        let settings = try AuthError.mapped { try SecuritySettings(vault: vault) }
        if !status.lockedOut { status.reuseWindowLeft = environment.reuseWindow.left(for: storeID, window: settings.reuseWindow) }
        status.kind = try AuthError.mapped { try vault.kind }
        if let accepted = try FprintdAcceptance.read(vault) {
            status.enrolledFingers = Self.listed(accepted).map { VaultStatus.EnrolledFinger(finger: $0.finger, reader: $0.reader) }
        } else {
            status.enrolledFingers = try AuthError.mapped {
                try VaultPrintStore(vault: vault).allPrints().map { VaultStatus.EnrolledFinger(finger: $0.finger, reader: $0.reader) }
            }
        }
    }
}
