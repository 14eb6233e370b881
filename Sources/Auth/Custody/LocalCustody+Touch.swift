import AuthCore
import Fingerprint
import Foundation
import Vault

/// User mode's custody: the key waits in the kernel keyring (after a passcode unlock, until expiry,
/// `lock` or reboot), the counters are the user's attempt file, the reader is scanned in this
/// process and the templates are sealed in the vault. The finger is a presence check here: the
/// user's own processes can read the keyring and the file (the README's threat model says so).
struct LocalCustody: KeyCustody {
    let environment: AuthEnvironment

    init(_ environment: AuthEnvironment) { self.environment = environment }

    var dependencies: AuthEnvironment.Dependencies { environment.dependencies }
    var interaction: any AuthInteraction { environment.interaction }
    var touchLedger: TouchLedger { environment.touchLedger }

    // MARK: Touches

    func checkBiometrics() async throws {
        try await biometricPreconditions()
        // The lockout first: it forgets the key, and is what the user must be told.
        if try AuthError.mapped({ try touchAttempt().lockedOut() }) { throw AuthError.lockout }
        let storeID = try environment.recordedStoreID
        guard try dependencies.keyCache.load(name: storeID.uuidString) != nil else { throw AuthError.noCachedKey }
    }

    func unlockWithFinger() async throws -> Vault {
        let reader = try await environment.requireReader()
        try await biometricPreconditions()
        if try AuthError.mapped({ try touchAttempt().lockedOut() }) { throw AuthError.lockout }
        let vault = try openWithCachedKey()
        do {
            try environment.checkReaderKind(reader, vault: vault)
            let settings = try AuthError.mapped { try SecuritySettings(vault: vault) }
            if try environment.isWithinReuseWindow(vault, settings) { return vault }
            let source = try fingerSource(vault: vault, reader: reader)
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
        // overlaps the checks and the unlock below.
        dependencies.readerLookup.start()
        try await environment.refuseRemoteSession()
        // A lockout is said before anything is asked (it forgot the key, so the passcode would be next).
        if try AuthError.mapped({ try touchAttempt().lockedOut() }) { throw AuthError.lockout }
        // The cached key opens the vault while the reader is being found; the passcode is asked for
        // only once the reader is known to be there. So a vault that cannot be opened is reported
        // before a missing reader, and a missing reader before any passcode prompt.
        let cached = try cachedVault()
        let reader: any FingerprintReader
        do {
            reader = try await environment.requireReader()
        } catch {
            cached.vault?.close()
            throw error
        }
        let vault = try await vault(cached, orPasscodeFor: "read the enrolled fingers")
        defer { vault.close() }
        try environment.checkReaderKind(reader, vault: vault)
        let source = try fingerSource(vault: vault, reader: reader)
        let checked = try await candidates(of: source, wanted: finger)
        if !checked.identifies {
            interaction.notify("This reader cannot identify among fingers; checking \(checked.fingers[0]).")
        }
        let settings = try AuthError.mapped { try SecuritySettings(vault: vault) }
        let matched = try await touches(source, wanted: finger, tries: 1, timeout: settings.scanTimeout, offerPasscode: false)
        // A matching touch is an unlock, `verify`'s too (as fingerlockd counts it).
        environment.startReuseWindow(vault)
        return TouchVerification.VerifiedTouch(finger: matched, reader: reader.identity, identified: checked.identifies)
    }

    /// The vault opened with the cached key, once a touch could be asked for at all.
    func vaultFromCache() async throws -> Vault {
        try await biometricPreconditions()
        return try openWithCachedKey()
    }

    func biometricPreconditions() async throws {
        try await environment.refuseRemoteSession()
        _ = try await environment.requireReader()
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

    /// Up to `tries` touches on this process's reader (``TouchSession``), each under the failed-touch
    /// rule (``TouchAttempt``); the finger that matched.
    func touches(
        _ source: TemplateFingerSource, wanted: Finger?, tries: Int, timeout: Duration, offerPasscode: Bool = true
    ) async throws -> Finger {
        let attempt = try touchAttempt()
        let matched: Finger? = try await TouchSession(interaction: interaction).run(
            tries: tries, scanType: source.reader.scanType, offerPasscode: offerPasscode
        ) {
            if try attempt.lockedOut() { throw AuthError.lockout }
            let verdict = try await attempt.run { fingerRead in
                try await source.match(wanted, timeout: timeout, fingerRead: fingerRead)
            }
            if case .matched(let finger) = verdict { return .matched(finger) }
            return .other(verdict)
        }
        // A template source always names the finger that matched.
        guard let matched else { throw AuthError(.dataError, "The reader matched without naming the finger.") }
        return matched
    }

    /// The vault's fingers on `reader`, as the templates sealed in it.
    func fingerSource(vault: Vault, reader: any FingerprintReader) throws -> TemplateFingerSource {
        TemplateFingerSource(try VaultPrintStore(vault: vault).prints(for: reader.identity), reader: reader)
    }

    /// Which fingers a touch on `source` is checked against; none is a clear error.
    func candidates(of source: any FingerSource, wanted: Finger?) async throws -> CheckedFingers {
        do {
            return try await source.candidates(wanted)
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
