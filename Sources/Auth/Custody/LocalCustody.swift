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

    /// Enrolls on the reader in effect and seals the template in the vault.
    func enroll(
        _ finger: Finger, username: String, confirmReplacing: @Sendable (Enrollment.ListedFinger) async throws -> Bool,
        updates: @escaping @Sendable (Enrollment.Update) -> Void
    ) async throws -> Enrollment.ListedFinger {
        // The reader first: nobody types a passcode for a reader that is not there.
        let reader = try await environment.requireReader()
        // With a key cached, the enrolled fingers are known now: one already enrolled is said, and
        // its replacement agreed, before anyone types the passcode for it.
        // A passcode given within the reuse window (right after `passcode set`, say) is not asked
        // again: its key is used, as the other commands skip the touch.
        var agreed = false
        var proven: Vault?
        if let cached = try? cachedVault().vault {
            let known = try? VaultPrintStore(vault: cached).prints(for: reader.info.identity).first { $0.finger == finger }
            if (try? environment.isWithinPasscodeWindow(cached)) == true { proven = cached } else { cached.close() }
            if let known {
                let replacing: Bool
                do {
                    replacing = try await confirmReplacing(Enrollment.ListedFinger(known))
                } catch {
                    proven?.close()
                    throw error
                }
                guard replacing else {
                    proven?.close()
                    throw AuthError(.userCancel, "\(finger) stays enrolled as it was; nothing was changed.")
                }
                agreed = true
            }
        }
        let vault: Vault
        if let proven { vault = proven } else { vault = try await PasscodeUnlock(environment).unlockWithPasscode(reason: "enroll a finger") }
        defer { vault.close() }
        try environment.checkReaderKind(reader, vault: vault)
        let store = VaultPrintStore(vault: vault)
        let settings = try AuthError.mapped { try SecuritySettings(vault: vault) }
        let info = reader.info
        let old = try AuthError.mapped { try store.prints(for: info.identity) }.first { $0.finger == finger }
        if let old {
            let replacing = agreed ? true : try await confirmReplacing(Enrollment.ListedFinger(old))
            guard replacing else {
                throw AuthError(.userCancel, "\(finger) stays enrolled as it was; nothing was changed.")
            }
            // An on-chip reader refuses a second copy of a print: drop the old one first.
            if info.hasStorage { try? await reader.deleteStoredPrint(old) }
        }
        updates(.starting(info))
        let print: EnrolledPrint
        do {
            let label = PrintLabel.username(user: username, storeID: try AuthError.mapped { try vault.storeID })
            print = try await reader.enroll(finger, username: label, timeout: settings.scanTimeout) { event in
                updates(.progress(event))
            }
        } catch is CancellationError {
            throw AuthError(.userCancel, "Enrollment cancelled; nothing was saved.")
        } catch let error as FingerprintError
            where error.code == .storageFull && info.features.isSuperset(of: [.storageList, .storageDelete])
        {
            throw FingerprintError(
                .storageFull,
                "The reader's own storage is full: `fingerlock storage list` shows whose prints fill it, and"
                    + " `fingerlock storage delete ID` (another program's) or `fingerlock forget FINGER` (yours) frees a"
                    + " place. Nothing was saved.")
        } catch let error as FingerprintError where error.code == .duplicate && info.hasStorage {
            let explanation = await ReaderStorageManagement.duplicateExplanation(finger, reader: reader, vault: vault)
            throw FingerprintError(.duplicate, explanation + " Nothing was saved.")
        } catch let error as FingerprintError {
            throw FingerprintError(error.code, error.message + " Nothing was saved.")
        }
        try AuthError.mapped { try store.save(print) }
        return Enrollment.ListedFinger(print)
    }

    func forget(_ finger: Finger?, covers: @Sendable (ReaderIdentity) -> Bool) async throws -> [Enrollment.ForgottenPrint] {
        let vault = try await PasscodeUnlock(environment).unlockWithPasscode(reason: "forget a finger")
        defer { vault.close() }
        let store = VaultPrintStore(vault: vault)
        let targets = try store.allPrints().filter { ($0.finger == finger || finger == nil) && covers($0.reader) }
        if targets.isEmpty, let finger {
            throw AuthError(.notFound, "\(finger) is not enrolled; `fingerlock fingers` lists the enrolled ones.")
        }
        var connected: [ReaderIdentity: any FingerprintReader] = [:]
        if targets.contains(where: { !$0.reader.isSimulated }) {
            for reader in await dependencies.connectedReaders() { connected[reader.identity] = reader }
        }
        var forgotten: [Enrollment.ForgottenPrint] = []
        for print in targets {
            var onReader = Enrollment.ForgottenPrint.OnReader.nothingLeft
            if let reader = connected[print.reader], reader.info.features.contains(.storageDelete) {
                do {
                    try await reader.deleteStoredPrint(print)
                } catch let error as FingerprintError where error.code == .printNotFound {
                    // Already gone from the device: nothing to do there.
                }
            } else if !print.reader.isSimulated, connected[print.reader] == nil {
                onReader = .leftOnDisconnectedReader
            }
            try AuthError.mapped { _ = try store.delete(print.finger, on: print.reader) }
            forgotten.append(Enrollment.ForgottenPrint(finger: print.finger, reader: print.reader, onReader: onReader))
        }
        return forgotten
    }

    /// The enrolled fingers, read with the cached key or else the passcode (`fingers`): fprintd's
    /// accepted set, or the templates sealed in the vault.
    func enrolledFingers() async throws -> [Enrollment.ListedFinger] {
        let vault = try await openWithoutTouch(reason: "read the enrolled fingers")
        defer { vault.close() }
        if let accepted = try FprintdAcceptance.read(vault) { return Self.listed(accepted) }
        return try VaultPrintStore(vault: vault).allPrints().map {
            Enrollment.ListedFinger(finger: $0.finger, reader: $0.reader, enrolled: $0.enrolled)
        }
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
            return SetupStatus(passcodeSet: true, enrolledFingers: Self.listed(accepted).map { "\($0.finger) on \($0.reader)" })
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
