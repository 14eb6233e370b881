import AuthCore
import Fingerprint
import Foundation
import TrustedPlatform
import Vault

/// System mode's custody: fingerlockd, as its own system user, keeps the key (in its memory only),
/// the counters, the reader and the templates, and its per-vault secret is entangled into the
/// passcode slot, so the finger is a barrier: nothing of the user's can release the key or reset a
/// count. Nothing goes into the user's keyring, and nothing found there is used.
struct ServiceCustody: KeyCustody {
    /// Unowned: the environment holds its custody for the command (`AuthEnvironment.holdCustody`).
    unowned let environment: AuthEnvironment

    init(_ environment: AuthEnvironment) { self.environment = environment }

    var interaction: any AuthInteraction { environment.interaction }
    var passcodes: any PasscodeRepository { environment.passcodes }
    var systemService: any SystemService { environment.systemService }

    // MARK: Touches

    /// A touch goes through fingerlockd, never through the user's keyring or an in-process match.
    func checkBiometrics() async throws { throw AuthError.systemModeTouch }

    func unlockWithFinger() async throws -> Vault {
        try await environment.refuseRemoteSession()
        return try await touchUnlock(finger: nil, tries: nil, offerPasscode: true, reuse: true).vault
    }

    func verifyTouch(finger: Finger?) async throws -> TouchVerification.VerifiedTouch {
        try await environment.refuseRemoteSession()
        let (vault, touch): (Vault, SystemTouch)
        do {
            (vault, touch) = try await touchUnlock(finger: finger, tries: 1, offerPasscode: false, reuse: false)
        } catch let error as AuthError where error.unavailability == .noCachedKey {
            // As in user mode: with no key held, the passcode first (the service keeps the key
            // after it), then the touch; without a terminal, the reason and how to give it.
            try await PasscodeUnlock(environment).unlockWithPasscode(reason: "read the enrolled fingers", why: error).close()
            (vault, touch) = try await touchUnlock(finger: finger, tries: 1, offerPasscode: false, reuse: false)
        }
        vault.close()
        // Without reuse every key comes from a scan, which names its reader.
        guard let reader = touch.reader else {
            throw AuthError(.dataError, "fingerlockd released the key without naming the reader that matched.")
        }
        return TouchVerification.VerifiedTouch(finger: touch.finger, reader: reader, identified: true)
    }

    // MARK: The key after the passcode

    func openWithoutTouch(reason: String) async throws -> Vault {
        try await PasscodeUnlock(environment).unlockWithPasscode(reason: reason, why: AuthError.systemModeTouch)
    }

    /// fingerlockd keeps the key (it cached it when it checked the passcode); whatever this vault
    /// left in the user's keyring in user mode goes.
    func keep(_ vault: Vault) throws {
        environment.forgetUserKeyringEntries(of: vault)
    }

    /// Nothing: fingerlockd checks the passcode itself where it wants proof, and system mode leaves
    /// nothing in the user's keyring.
    func passcodeProven(_ vault: Vault) {}

    /// The old key opens nothing any more: the service forgets any key it holds (best effort), then
    /// learns the vault's settings, proven with the new key.
    func rekeyed(_ vault: Vault) throws {
        if let storeID = try? vault.storeID { _ = try? systemService.lock(vault: storeID) }
        environment.forgetUserKeyringEntries(of: vault)
        environment.tellServicePolicy(of: vault)
    }

    /// fingerlockd applies the vault's settings: it learns them with the key as proof.
    func settingChanged(_ key: SecuritySettings.Key, in vault: Vault) throws {
        environment.tellServicePolicy(of: vault)
    }

    /// The key is in fingerlockd's memory: none in this process's reach.
    var keyring: (any KeyCache)? { nil }

    // MARK: The passcode slot

    /// fingerlockd's per-vault secret is entangled into the slot; it counts every attempt.
    var passcodeSealer: any PasscodeSlotSealer { ServicePasscodeSealer(service: systemService, notify: notifyAcceptedFingers) }

    /// fingerlockd asks the TPM it uses.
    var tpmAskedHere: (any TrustedPlatformModule)? { nil }

    /// fingerlockd asks its TPM and refuses itself (after counting) when it would not.
    func refuseWhileTheTPMWouldNotBeAsked() throws {}

    /// fingerlockd does the TPM work for its vaults (its unit has the device), so the binding goes
    /// with the request.
    func passcodeSealer(binding: TPMBinding?) -> any PasscodeSlotSealer {
        ServicePasscodeSealer(service: systemService, tpm: binding, notify: notifyAcceptedFingers)
    }

    // MARK: Passcode attempts

    /// fingerlockd keeps the passcode counters and refuses during its delays.
    func refuseDuringPasscodeDelay() throws {}

    /// A passcode is counted (first) by fingerlockd, not in the user's own files; a recovery key,
    /// which opens the vault without the service, is still counted here.
    func passcodeLedger(for credentials: [VaultCredential]) -> PasscodeLedger? {
        let onlyPasscodes = credentials.allSatisfy { if case .passcode = $0 { true } else { false } }
        return onlyPasscodes ? nil : environment.passcodeLedger
    }

    /// Whatever the passcode was for (an unlock, a change, rekey, restore), the vault is open:
    /// fingerlockd learns its settings (the cache-expiry it already capped the key to).
    func opened(_ vault: Vault, with credential: VaultCredential) {
        if case .passcode = credential { environment.tellServicePolicy(of: vault) }
    }

    /// The service's count and delay are worth telling.
    func refusal(_ error: VaultError, for credential: VaultCredential) -> String? {
        guard error.code == .wrongPasscode, case .passcode = credential else { return nil }
        return error.message
    }

    // MARK: Fingers

    /// The service tells its owner which fingers it keeps, without the passcode.
    func enrolledFingers() async throws -> [Enrollment.ListedFinger] {
        try fingersInService()
    }

    /// An unreachable service is the service finding's to report.
    func inspectFingers() throws -> SetupStatus {
        guard let prints = try? fingersInService() else {
            return SetupStatus(passcodeSet: true, enrolledFingers: [], fingersUnknown: true)
        }
        // fprintd's fingers, as the service lists them, are the set the vault accepted.
        let fromFprintd = prints.filter { $0.reader.driver == FprintdDevice.driver }
        let accepted = fromFprintd.first.map { AcceptedFingers(device: $0.reader.deviceID, fingers: fromFprintd.map(\.finger)) }
        return SetupStatus(
            passcodeSet: true, enrolledFingers: prints.map { "\($0.finger) on \($0.reader)" }, acceptedFprintdFingers: accepted)
    }

    // MARK: Restore

    /// Trying the passcode on the backup's slot would be a counted attempt at the service (and a
    /// wrong one a failure): only an identical slot is known to match.
    func passcodeAfterRestore(_ passcode: String, current: Vault, backup: Vault) -> RestorePlan.Secret {
        current.hasSamePasscodeSlot(passcodeSealer.mode, as: backup) ? .current : .backupsUnchecked
    }

    /// The backup's passcode opens nothing without fingerlockd's secret for its vault.
    func problemAfterRestore(of backup: Vault) -> String? {
        do {
            let storeID = try backup.storeID
            if try environment.systemCall({ try systemService.status(vault: storeID) }).registered { return nil }
            return "fingerlockd has no secret for the backup's vault, so afterwards its passcode opens nothing; "
                + "its recovery key does (`fingerlock passcode reset`)."
        } catch {
            return "\(AuthError.from(error).message) Afterwards the passcode opens the vault only through fingerlockd; "
                + "the backup's recovery key opens it without."
        }
    }

    // MARK: Status and lock

    /// The key, the counters and the fingers that apply are fingerlockd's (the user's keyring and
    /// attempt file play no part). A service that cannot be asked is reported, not thrown: `status`
    /// still tells what it can.
    /// fingerlockd hands out no key without a touch: never.
    func openIfCached() throws -> Vault? { nil }

    func addView(to status: inout VaultStatus) throws {
        guard status.setUp else { return }
        status.keyCacheUnavailable = nil
        status.failedTouches = 0
        status.lockedOut = false
        do {
            let storeID = try environment.recordedStoreID
            let known = try environment.systemCall { try systemService.status(vault: storeID) }
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
            status.enrolledFingers = try? fingersInService().map {
                VaultStatus.EnrolledFinger(finger: $0.finger, reader: $0.reader)
            }
        } catch {
            status.service = .unreachable(AuthError.from(error).message)
        }
    }

    // MARK: fprintd

    /// fingerlockd asks fprintd for your fingers (as you, by name) and keeps the set the vault
    /// accepted; it asks fprintd first, so no passcode is spent on fingers fprintd does not have.
    func acceptFprintdFingers(enrolling: (@Sendable () async throws -> Void)?) async throws -> AcceptedFingers {
        // fprintd first where this process may ask it (as the service will, for the same user): no
        // passcode is typed for fingers fprintd does not have.
        if enrolling == nil, let current = try? await environment.fprintdSource(accepted: nil).currentSet(), current.fingers.isEmpty {
            throw AuthError.noFingersAtFprintd(on: current.device)
        }
        try PasscodeUnlock(environment).requirePasscodeSource()
        return try await withSealedPasscodeSlot(reason: enrolling == nil ? "accept fprintd's fingers" : "enroll a finger with fprintd") {
            proof in
            if let enrolling {
                // The passcode proven first (an unlock, counted by the service, which then holds
                // the key), so a wrong one changes nothing at fprintd.
                _ = try systemService.unlock(proof, notify: notifyAcceptedFingers)
                try await enrolling()
            }
            guard let accepted = try await systemService.useFprintdFingers(true, proof: proof) else {
                throw AuthError(.dataError, "fingerlockd did not say which of fprintd's fingers it accepted.")
            }
            return accepted
        }
    }

    func stopAcceptingFprintdFingers() async throws -> AcceptedFingers? {
        try PasscodeUnlock(environment).requirePasscodeSource()
        return try await withSealedPasscodeSlot(reason: "stop using fprintd's fingers") { proof in
            try await systemService.useFprintdFingers(false, proof: proof)
        }
    }

    /// What fingerlockd says a proven passcode accepted of fprintd's fingers, said to the user.
    var notifyAcceptedFingers: @Sendable (String) -> Void {
        { [interaction] in interaction.notify($0) }
    }
}
