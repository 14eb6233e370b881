import AuthCore
import Fingerprint
import Foundation
import Vault

/// User mode's custody: the key waits in the kernel keyring (after a passcode unlock, until expiry,
/// `lock` or reboot), the counters are the user's attempt file, the reader is scanned in this
/// process and the templates are sealed in the vault. The finger is a presence check here: the
/// user's own processes can read the keyring and the file (the README's threat model says so).
struct LocalCustody: KeyCustody {
    /// Unowned: the environment holds its custody for the command (`AuthEnvironment.holdCustody`).
    unowned let environment: AuthEnvironment

    init(_ environment: AuthEnvironment) { self.environment = environment }

    var dependencies: AuthEnvironment.Dependencies { environment.dependencies }
    var interaction: any AuthInteraction { environment.interaction }
    var touchLedger: TouchLedger { environment.touchLedger }

    // MARK: Touches

    func checkBiometrics() async throws {
        try await biometricPreconditions()
        // The lockout first: it forgets the key, and is what the user must be told.
        if try AuthError.mapped({ try touchAttempt().lockedOut() }) { throw AuthError.lockout }
        // Where the fingers are (the reader in effect, or fprintd) is sealed in the vault.
        let vault = try openWithCachedKey()
        defer { vault.close() }
        _ = try await fingerSource(for: vault)
    }

    func unlockWithFinger() async throws -> Vault {
        try await biometricPreconditions()
        if try AuthError.mapped({ try touchAttempt().lockedOut() }) { throw AuthError.lockout }
        let vault = try openWithCachedKey()
        do {
            let settings = try AuthError.mapped { try SecuritySettings(vault: vault) }
            if try environment.isWithinReuseWindow(vault, settings) {
                try await requireTheReaderOfTemplates(vault)
                return vault
            }
            let source = try await fingerSource(for: vault)
            _ = try await candidates(of: source, wanted: nil)
            _ = try await touches(source, wanted: nil, tries: settings.maxTries, timeout: settings.scanTimeout)
            environment.startReuseWindow(vault)
            return vault
        } catch {
            vault.close()
            throw error
        }
    }

    func verifyTouch(finger: Finger?) async throws -> TouchVerification.VerifiedTouch {
        // Finding the reader (opening libfprint, enumerating) starts now, on its own thread, and
        // overlaps the checks and the unlock below (fprintd, where it was chosen, was asked ahead
        // as the command started).
        dependencies.readerLookup.start()
        try await environment.refuseRemoteSession()
        // A lockout is said before anything is asked (it forgot the key, so the passcode would be next).
        if try AuthError.mapped({ try touchAttempt().lockedOut() }) { throw AuthError.lockout }
        // The cached key opens the vault while the reader is being found; the passcode is asked for
        // only once the reader is known to be there. So a vault that cannot be opened is reported
        // before a missing reader, and a missing reader before any passcode prompt.
        let cached = try cachedVault()
        let vault: Vault
        do {
            // A missing reader (of a vault with templates) is said before any passcode prompt.
            if let opened = cached.vault {
                vault = opened
            } else {
                _ = try await environment.requireReaderUnlessFprintdChosen()
                vault = try await self.vault(cached, orPasscodeFor: "read the enrolled fingers")
            }
        } catch {
            cached.vault?.close()
            throw error
        }
        defer { vault.close() }
        let source = try await fingerSource(for: vault)
        let checked = try await candidates(of: source, wanted: finger)
        if !checked.identifies {
            interaction.notify("This reader cannot identify among fingers; checking \(checked.fingers[0]).")
        }
        let settings = try AuthError.mapped { try SecuritySettings(vault: vault) }
        let matched = try await touches(source, wanted: finger, tries: 1, timeout: settings.scanTimeout, offerPasscode: false)
        // A matching touch is an unlock, `verify`'s too (as fingerlockd counts it).
        environment.startReuseWindow(vault)
        return TouchVerification.VerifiedTouch(finger: matched, reader: source.reader.identity, identified: checked.identifies)
    }

    /// The vault opened with the cached key, once a touch could be asked for at all.
    func vaultFromCache() async throws -> Vault {
        try await biometricPreconditions()
        return try openWithCachedKey()
    }

    func biometricPreconditions() async throws {
        try await environment.refuseRemoteSession()
        do {
            _ = try await environment.requireReaderUnlessFprintdChosen()
        } catch let error as AuthError where [.noReader, .noPermission, .busy].contains(error.unavailability) {
            // A vault that took fprintd's fingers needs no reader of this process's (fprintd has it):
            // the vault remembers fprintd without `--reader fprintd`.
            guard takesFprintdFingers() else { throw error }
        }
        if let reason = dependencies.keyCache.unavailableReason() {
            throw AuthError(.biometryNotAvailable, reason, unavailability: .noKeyring)
        }
    }

    /// The failed-touch rule over the user's attempt file; a lockout forgets the key in the keyring.
    func touchAttempt() throws -> TouchAttempt {
        let storeID = try environment.recordedStoreID.uuidString
        let keyCache = dependencies.keyCache
        let reuseWindow = environment.reuseWindow
        return TouchAttempt(touchLedger) {
            _ = try? keyCache.invalidate(name: storeID)
            reuseWindow.close(for: storeID)
        }
    }

    /// Up to `tries` touches (``TouchSession``), each under the failed-touch rule (``TouchAttempt``);
    /// the finger that matched, when the source names it.
    func touches(
        _ source: any FingerSource, wanted: Finger?, tries: Int, timeout: Duration, offerPasscode: Bool = true
    ) async throws -> Finger? {
        let attempt = try touchAttempt()
        return try await TouchSession(interaction: interaction).run(
            tries: tries, scanType: source.reader.scanType, offerPasscode: offerPasscode
        ) {
            if try attempt.lockedOut() { throw AuthError.lockout }
            let verdict = try await attempt.run { fingerRead in
                try await source.match(wanted, timeout: timeout, fingerRead: fingerRead)
            }
            if case .matched(let finger) = verdict { return .matched(finger) }
            return .other(verdict)
        }
    }

    /// The vault's fingers (``VaultFingers``): fprintd's when the vault accepted them, else the
    /// templates sealed in it for the reader in effect.
    func fingerSource(for vault: Vault) async throws -> any FingerSource {
        let kind = try AuthError.mapped { try vault.kind }
        do {
            return try await VaultFingers.source(
                kind: ReaderKind(kind), accepted: try FprintdAcceptance.read(vault),
                fprintd: { try await environment.fprintdSource(accepted: $0) },
                templates: {
                    let reader = try await environment.requireReader()
                    let prints = try AuthError.mapped { try VaultPrintStore(vault: vault).prints(for: reader.identity) }
                    return TemplateFingerSource(prints, reader: reader)
                })
        } catch let wrong as VaultFingers.WrongKind {
            throw AuthError.wrongReaderKind(wrong.reader.description, vaultKind: kind)
        }
    }

    /// Within the reuse window no touch is made, but a vault of templates still needs its reader
    /// there and of its kind (as a touch would); fprintd's vaults need nothing more.
    func requireTheReaderOfTemplates(_ vault: Vault) async throws {
        guard try FprintdAcceptance.read(vault) == nil else { return }
        try environment.checkReaderKind(try await environment.requireReader(), vault: vault)
    }

    /// Whether the vault, opened with the cached key, takes fprintd's fingers (false when it cannot
    /// be opened so: the error that brought the question up is then the one to say).
    func takesFprintdFingers() -> Bool {
        guard let vault = try? openWithCachedKey() else { return false }
        defer { vault.close() }
        return (try? FprintdAcceptance.read(vault)) != nil
    }

    /// Which fingers a touch on `source` is checked against; none is a clear error.
    func candidates(of source: any FingerSource, wanted: Finger?) async throws -> CheckedFingers {
        do {
            return try await source.candidates(wanted)
        } catch let changed as FprintdFingerSource.FingersChanged {
            throw AuthError(.biometryNotAvailable, changed.message, unavailability: .fingersChanged)
        } catch let problem as MatchCandidates.Problem {
            switch problem {
            case .noneEnrolled(let reader):
                throw AuthError.notEnrolled(reader)
            case .fingerNotEnrolled(let finger, let reader):
                throw AuthError(.notFound, "\(finger) is not enrolled on \(reader); `fingerlock fingers` lists the enrolled ones.")
            }
        }
    }
}
