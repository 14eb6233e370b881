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
        let storeID = try environment.recordedStoreID
        guard try dependencies.keyCache.load(name: storeID.uuidString) != nil else { throw AuthError.noCachedKey }
        if try touchLedger.isLockedOut() { throw AuthError.lockout }
    }

    func unlockWithFinger() async throws -> Vault {
        let reader = try await environment.requireReader()
        let vault = try await vaultFromCache()
        do {
            try environment.checkReaderKind(reader, vault: vault)
            if try AuthError.mapped({ try touchLedger.isLockedOut() }) { throw AuthError.lockout }
            let settings = try AuthError.mapped { try SecuritySettings(vault: vault) }
            if try environment.isWithinReuseWindow(vault, settings) { return vault }
            let candidates = try matchCandidates(vault: vault, reader: reader, wanted: nil)
            _ = try await touches(candidates.prints, reader: reader, tries: settings.maxTries, timeout: settings.scanTimeout)
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
        if try AuthError.mapped({ try touchLedger.isLockedOut() }) { throw AuthError.lockout }
        let candidates = try matchCandidates(vault: vault, reader: reader, wanted: finger)
        if !candidates.identifies {
            interaction.notify("This reader cannot identify among fingers; checking \(candidates.prints[0].finger).")
        }
        let settings = try AuthError.mapped { try SecuritySettings(vault: vault) }
        let matched = try await touches(
            candidates.prints, reader: reader, tries: 1, timeout: settings.scanTimeout, offerPasscode: false)
        // A matching touch is an unlock, `verify`'s too (as fingerlockd counts it).
        environment.startReuseWindow(vault)
        return TouchVerification.VerifiedTouch(print: matched, reader: reader.identity, identified: candidates.identifies)
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

    /// Up to `tries` touches. Each is counted as a failure before it is evaluated (so a crash or a
    /// parallel run cannot skip one) and uncounted when it turns out not to be a no-match.
    func touches(
        _ prints: [EnrolledPrint], reader: any FingerprintReader, tries: Int, timeout: Duration, offerPasscode: Bool = true
    ) async throws -> EnrolledPrint {
        var prints = prints
        var noMatches = 0
        var hints = 0
        /// What a no-match message adds: prints the reader turned out to have lost.
        var lost = ""
        let verb = reader.info.scanType == .swipe ? "Swipe your finger on" : "Touch"
        while noMatches < tries {
            let failures = try AuthError.mapped { try touchLedger.count() }
            guard failures <= TouchLedger.lockoutThreshold else {
                try uncountTouch()
                throw AuthError.lockout
            }
            let outcome: ScanOutcome<ScanResult>
            do {
                let prompt = "\(verb) the fingerprint reader" + (offerPasscode ? " (or press Enter to type your passcode)" : "")
                outcome = try await interaction.scan(prompt: prompt) { [prints] in
                    try await reader.match(prints, timeout: timeout)
                }
            } catch {
                try uncountTouch()
                let failure = AuthError.from(error)
                // A reader that reads the terminal itself (the interactive simulated one) reports
                // Enter as its own fallback: the same as leaving the scan at the prompt.
                if failure.code == .userFallback { throw AuthError.scanLeft(typed: "", offerPasscode: offerPasscode) }
                throw failure
            }
            switch outcome {
            case .scanned(.match(let print)):
                try AuthError.mapped { try touchLedger.matched() }
                return print
            case .scanned(.noMatch), .scanned(.notInReaderStorage):
                if case .scanned(.notInReaderStorage) = outcome {
                    // The reader decided, so the touch stays counted unless its answer is known to be
                    // about lost prints (``LostPrints``): then no touch could have matched them.
                    let gone = await LostPrints.find(scanned: prints, on: reader)
                    if gone.noneLeft {
                        try uncountTouch()
                        throw AuthError(
                            .biometryNotAvailable, gone.sentence(on: reader.identity), unavailability: .printNotStored)
                    }
                    if !gone.prints.isEmpty {
                        // The touch was compared with the prints still stored and matched none: a real
                        // no-match. The lost ones leave the scan; the user learns how to get them back.
                        prints.removeAll { gone.prints.contains($0) }
                        lost = " " + gone.sentence(on: reader.identity)
                    }
                }
                noMatches += 1
                if failures >= TouchLedger.lockoutThreshold {
                    // Still a no-match (exit 1 where nothing can ask for the passcode), and now a lockout.
                    throw AuthError(
                        .authenticationFailed,
                        "No match. That was the \(TouchLedger.lockoutThreshold)th failed touch in a row: fingerprint unlock is off until the passcode is entered."
                            + lost)
                }
                if noMatches < tries { interaction.notify("No match." + lost + " Try again.") }
            case .scanned(.retry(let reason)):
                try uncountTouch()
                hints += 1
                guard hints <= AuthContext.maximumRetryHints else {
                    throw AuthError(.authenticationFailed, "The reader could not read the finger: \(reason.hint)")
                }
                interaction.notify(reason.hint)
            case .passcodeRequested(let typed):
                try uncountTouch()
                throw AuthError.scanLeft(typed: typed, offerPasscode: offerPasscode)
            }
        }
        throw AuthError(
            .authenticationFailed, (tries == 1 ? "No match." : "No match after \(tries) tries.") + lost)
    }

    func uncountTouch() throws {
        try AuthError.mapped { try touchLedger.undo() }
    }

    /// The vault's prints a touch on `reader` is matched against (the rule both modes share).
    func matchCandidates(vault: Vault, reader: any FingerprintReader, wanted: Finger?) throws -> MatchCandidates {
        let enrolled = try VaultPrintStore(vault: vault).prints(for: reader.identity)
        do {
            return try MatchCandidates(enrolled, reader: reader.identity, canIdentify: reader.info.canIdentify, wanted: wanted)
        } catch {
            switch error {
            case .noneEnrolled:
                throw AuthError.notEnrolled(reader)
            case .fingerNotEnrolled(let finger, _):
                throw AuthError(
                    .notFound, "\(finger) is not enrolled on \(reader.identity); `fingerlock fingers` lists the enrolled ones.")
            }
        }
    }

}
