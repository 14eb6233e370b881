import AuthCore
public import Fingerprint
import Foundation
import Vault

/// Fingerprint unlocks: the touches, their counting towards lockout, and `verify`.
extension AuthContext {
    /// One touch against the sealed templates (`fingerlock verify`): the vault key comes from the
    /// cache, else from the passcode. Returns the finger that matched; a no-match counts towards
    /// lockout and throws `.authenticationFailed`.
    public func verifyTouch(finger: Finger?) async throws -> (print: EnrolledPrint, reader: ReaderIdentity, identified: Bool) {
        guard passcodes.hasPasscode else { throw passcodeNotSet }
        // A user-mode vault scans here: finding the reader (opening libfprint, enumerating) starts
        // now, on its own thread, and overlaps the checks and the unlock below.
        if !isSystemMode { dependencies.readerLookup.start() }
        try refuseRemoteSession()
        if isSystemMode {
            let (vault, touch): (Vault, SystemTouch)
            do {
                (vault, touch) = try await systemTouchUnlock(finger: finger, tries: 1, offerPasscode: false, reuse: false)
            } catch let error as AuthError where error.unavailability == .noCachedKey {
                // As in user mode: with no key held, the passcode first (the service keeps the key
                // after it), then the touch; without a terminal, the reason and how to give it.
                try await unlockWithPasscode(reason: "read the enrolled fingers", why: error).close()
                (vault, touch) = try await systemTouchUnlock(finger: finger, tries: 1, offerPasscode: false, reuse: false)
            }
            vault.close()
            // Without reuse every key comes from a scan, which names its finger and reader.
            guard let matched = touch.finger, let reader = touch.reader else {
                throw AuthError(.dataError, "fingerlockd released the key without naming the finger that matched.")
            }
            let print = EnrolledPrint(finger: matched, reader: reader, template: Data(), enrolled: Date())
            return (print, reader, true)
        }
        // The cached key opens the vault while the reader is being found; the passcode is asked for
        // only once the reader is known to be there. So a vault that cannot be opened is reported
        // before a missing reader, and a missing reader before any passcode prompt.
        let cached = try cachedVault()
        let reader: any FingerprintReader
        do {
            reader = try await requireReader()
        } catch {
            cached.vault?.close()
            throw error
        }
        let vault = try await vault(cached, orPasscodeFor: "read the enrolled fingers")
        defer { vault.close() }
        try checkReaderKind(reader, vault: vault)
        if try Self.vaultCall({ try touchLedger.isLockedOut() }) { throw lockout }
        let candidates = try matchCandidates(vault: vault, reader: reader, wanted: finger)
        if !candidates.identifies {
            interaction.notify("This reader cannot identify among fingers; checking \(candidates.prints[0].finger).")
        }
        let settings = try Self.vaultCall { try SecuritySettings(vault: vault) }
        let matched = try await touches(
            candidates.prints, reader: reader, tries: 1, timeout: settings.scanTimeout, offerPasscode: false)
        // A matching touch is an unlock, `verify`'s too (as fingerlockd counts it).
        startReuseWindow(vault)
        return (matched, reader.identity, candidates.identifies)
    }

    func unlockWithFinger() async throws -> Vault {
        if isSystemMode {
            try refuseRemoteSession()
            return try await systemTouchUnlock(finger: nil, tries: nil, offerPasscode: true, reuse: true).vault
        }
        let reader = try await requireReader()
        let vault = try await vaultFromCache()
        do {
            try checkReaderKind(reader, vault: vault)
            if try Self.vaultCall({ try touchLedger.isLockedOut() }) { throw lockout }
            let settings = try Self.vaultCall { try SecuritySettings(vault: vault) }
            if try isWithinReuseWindow(vault, settings) { return vault }
            let candidates = try matchCandidates(vault: vault, reader: reader, wanted: nil)
            _ = try await touches(candidates.prints, reader: reader, tries: settings.maxTries, timeout: settings.scanTimeout)
            startReuseWindow(vault)
            return vault
        } catch {
            vault.close()
            throw error
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
            let failures = try Self.vaultCall { try touchLedger.count() }
            guard failures <= TouchLedger.lockoutThreshold else {
                try uncountTouch()
                throw lockout
            }
            let outcome: ScanOutcome
            do {
                let prompt = "\(verb) the fingerprint reader" + (offerPasscode ? " (or press Enter to type your passcode)" : "")
                outcome = try await interaction.scan(prompt: prompt) { [prints] in
                    try await reader.match(prints, timeout: timeout)
                }
            } catch {
                try uncountTouch()
                let failure = Self.authError(error)
                // A reader that reads the terminal itself (the interactive simulated one) reports
                // Enter as its own fallback: the same as leaving the scan at the prompt.
                if failure.code == .userFallback { throw Self.scanLeft(typed: "", offerPasscode: offerPasscode) }
                throw failure
            }
            switch outcome {
            case .scanned(.match(let print)):
                try Self.vaultCall { try touchLedger.matched() }
                return print
            case .scanned(.noMatch), .scanned(.notInReaderStorage):
                if case .scanned(.notInReaderStorage) = outcome {
                    // The reader decided, so the touch stays counted unless its own list, read to the
                    // end, shows that no print of the scan is on it any more: then no touch could
                    // have matched, which is not a guess.
                    if let missing = await Self.printsGone(prints, from: reader), !missing.isEmpty {
                        if missing.count == prints.count {
                            try uncountTouch()
                            throw AuthError(
                                .biometryNotAvailable, Self.notStoredSentence(missing, on: reader),
                                unavailability: .printNotStored)
                        }
                        // The touch was compared with the prints still stored and matched none: a real
                        // no-match. The lost ones leave the scan; the user learns how to get them back.
                        prints.removeAll { missing.contains($0) }
                        lost = " " + Self.notStoredSentence(missing, on: reader)
                    }
                }
                noMatches += 1
                if failures >= TouchLedger.lockoutThreshold {
                    // Still a no-match (exit 1 where nothing can ask for the passcode), and now a lockout.
                    throw AuthError(
                        .authenticationFailed,
                        "No match. That was the \(TouchLedger.lockoutThreshold)th failed touch in a row: fingerprint unlock is off until the passcode is entered." + lost)
                }
                if noMatches < tries { interaction.notify("No match." + lost + " Try again.") }
            case .scanned(.retry(let reason)):
                try uncountTouch()
                hints += 1
                guard hints <= Self.maximumRetryHints else {
                    throw AuthError(.authenticationFailed, "The reader could not read the finger: \(reason.hint)")
                }
                interaction.notify(reason.hint)
            case .passcodeRequested(let typed):
                try uncountTouch()
                throw Self.scanLeft(typed: typed, offerPasscode: offerPasscode)
            }
        }
        throw AuthError(
            .authenticationFailed, (tries == 1 ? "No match." : "No match after \(tries) tries.") + lost)
    }

    /// Which of `prints` the reader's own storage no longer holds; nil when that cannot be known (the
    /// reader cannot list, or listing failed or was interrupted).
    static func printsGone(_ prints: [EnrolledPrint], from reader: any FingerprintReader) async -> [EnrolledPrint]? {
        guard reader.info.features.contains(.storageList),
            let stored = try? await reader.storedPrints(known: prints)
        else { return nil }
        let kept = stored.compactMap(\.known)
        return prints.filter { !kept.contains($0) }
    }

    /// Says which prints the reader lost and how to get them back.
    static func notStoredSentence(_ missing: [EnrolledPrint], on reader: any FingerprintReader) -> String {
        let fingers = missing.map(\.finger.rawValue)
        let names = fingers.count == 1 ? "The \(fingers[0]) print is" : "The \(fingers.joined(separator: ", ")) prints are"
        let command = missing.count == 1 ? "`fingerlock enroll \(fingers[0])`" : "`fingerlock enroll FINGER` for each"
        return "\(names) no longer stored on \(reader.identity) (another program, a firmware update or a"
            + " storage clear removed it); enroll it again with \(command)."
    }

    private func uncountTouch() throws {
        try Self.vaultCall { try touchLedger.undo() }
    }

    /// The vault's prints a touch on `reader` is matched against (the rule both modes share).
    func matchCandidates(vault: Vault, reader: any FingerprintReader, wanted: Finger?) throws -> MatchCandidates {
        let enrolled = try VaultPrintStore(vault: vault).prints(for: reader.identity)
        do {
            return try MatchCandidates(enrolled, reader: reader.identity, canIdentify: reader.info.canIdentify, wanted: wanted)
        } catch {
            switch error {
            case .noneEnrolled:
                throw notEnrolled(reader)
            case .fingerNotEnrolled(let finger, _):
                throw AuthError(
                    .notFound, "\(finger) is not enrolled on \(reader.identity); `fingerlock fingers` lists the enrolled ones.")
            }
        }
    }

    func refuseRemoteSession() throws {
        if let remote = dependencies.remoteSession() {
            throw AuthError(.biometryNotAvailable, remote, unavailability: .remoteSession)
        }
    }

    func biometricPreconditions() async throws {
        try refuseSystemModeTouch()
        try refuseRemoteSession()
        _ = try await requireReader()
        if let reason = dependencies.keyCache.unavailableReason() {
            throw AuthError(.biometryNotAvailable, reason, unavailability: .noKeyring)
        }
    }

    /// The reader in effect, waiting for libfprint's enumeration if it is still running.
    func requireReader() async throws -> any FingerprintReader {
        let (reader, problem) = await dependencies.readerLookup.outcome()
        // libfprint's enumeration cannot be interrupted; a Ctrl-C during it takes effect here.
        try Task.checkCancellation()
        if let reader { return reader }
        if let problem { throw Self.authError(problem) }
        throw AuthError(.biometryNotAvailable, "No fingerprint reader is connected.", unavailability: .noReader)
    }

    /// Refuses a test reader on a hardware vault and a hardware reader on a test vault.
    func checkReaderKind(_ reader: any FingerprintReader, vault: Vault) throws {
        let kind = try Self.vaultCall { try vault.kind }
        if !ReaderKind(kind).accepts(reader.identity) {
            throw Self.wrongReaderKind(reader.identity.description, vaultKind: kind)
        }
    }

    /// The one line for a reader of the wrong kind, in user mode and from fingerlockd alike.
    static func wrongReaderKind(_ reader: String, vaultKind: VaultKind) -> AuthError {
        let message =
            vaultKind == .hardware
            ? "This vault was set up with real hardware; it does not accept the test reader \(reader)."
            : "This is a test vault (set up with a simulated or virtual reader); it does not accept \(reader)."
        return AuthError(.biometryNotAvailable, message, unavailability: .wrongReaderKind)
    }

    /// What leaving a scan means: the passcode, where one is offered; otherwise (`verify`) the
    /// command is cancelled — Enter, typing and Ctrl-C alike, since no passcode follows.
    static func scanLeft(typed: String, offerPasscode: Bool) -> AuthError {
        guard offerPasscode else { return AuthError(.userCancel, "Cancelled; no finger was checked.") }
        return AuthError(.userFallback, "The passcode was chosen.", detail: .userFallbackTyped(typed))
    }
}
