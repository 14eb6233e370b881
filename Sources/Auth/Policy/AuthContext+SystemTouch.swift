import Fingerprint
import Foundation
import Synchronization
import Vault

/// Touches, enrollment and forgetting for a system-mode vault: fingerlockd owns the reader, the
/// templates and the cached key; the vault is opened only with the key the service released after
/// a matching touch, and every change to the enrolled set needs the passcode, proven to the service.
extension AuthContext {
    var systemFingers: any SystemFingerService { dependencies.systemFingers }

    /// Up to `tries` touches through the service (nil: the vault's max-tries). The passcode is
    /// needed first (the service holds the key only after one); the service counts, matches,
    /// forgets the key after a lockout, and with `reuse` releases it without a scan within the
    /// vault's reuse window.
    func systemTouchUnlock(finger: Finger?, tries: Int?, offerPasscode: Bool, reuse: Bool) async throws
        -> (vault: Vault, touch: SystemTouch)
    {
        let storeID = try recordedStoreID
        // The vault's settings are sealed in it: the service applies what the owner told it, and
        // says it in the same round trip that asks for a release within the reuse window (then no
        // touch prompt is shown, as in user mode).
        let told: (tries: Int?, scanTimeout: Duration?)?
        if reuse {
            switch try await asyncSystemCall({ try await systemFingers.unlockWithoutScan(vault: storeID) }) {
            case .released(let key):
                let vault = try Self.vaultCall { try passcodes.open(with: .masterKey(key)) }
                return (vault, SystemTouch(key: key, finger: nil, reader: nil))
            case .scanNeeded(let tries, let scanTimeout):
                told = tries == nil && scanTimeout == nil ? nil : (tries, scanTimeout)
            }
        } else {
            told = try systemCall { try systemFingers.policy(vault: storeID) }.map { ($0.maxTries, $0.scanTimeout) }
        }
        let defaults = SecuritySettings()
        let tries = tries ?? told?.tries ?? defaults.maxTries
        let timeout = told?.scanTimeout ?? defaults.scanTimeout
        var noMatches = 0
        var hints = 0
        while true {
            let released = Mutex<SystemTouch?>(nil)
            let outcome: ScanOutcome
            do {
                let prompt = "Touch the fingerprint reader" + (offerPasscode ? " (or press Enter to type your passcode)" : "")
                outcome = try await interaction.scan(prompt: prompt) { [systemFingers] in
                    let touch = try await systemFingers.unlockWithTouch(
                        vault: storeID, finger: finger, timeout: timeout, reuse: reuse)
                    released.withLock { $0 = touch }
                    // Only a stand-in for the interaction: the match was decided by the service.
                    return .match(
                        EnrolledPrint(
                            finger: touch.finger ?? .rightIndex, reader: touch.reader ?? Self.serviceReader,
                            template: Data(), enrolled: Date()))
                }
            } catch let error as SystemFingerError {
                switch error.code {
                case .noMatch(let failed, let left):
                    noMatches += 1
                    if left == 0 {
                        throw AuthError(
                            .authenticationFailed,
                            "No match. That was the \(failed)th failed touch in a row: fingerlockd forgot the key, so the passcode is needed.")
                    }
                    if noMatches < tries {
                        interaction.notify("No match. Try again.")
                        continue
                    }
                    throw AuthError(.authenticationFailed, tries == 1 ? "No match." : "No match after \(tries) tries.")
                case .retry(let reason):
                    hints += 1
                    guard hints <= Self.maximumRetryHints else {
                        throw AuthError(.authenticationFailed, "The reader could not read the finger: \(reason.hint)")
                    }
                    interaction.notify(reason.hint)
                    continue
                default:
                    throw Self.authError(systemFinger: error)
                }
            }
            switch outcome {
            case .passcodeRequested(let typed):
                throw Self.scanLeft(typed: typed, offerPasscode: offerPasscode)
            case .scanned:
                guard let touch = released.withLock({ $0 }) else {
                    throw AuthError(.dataError, "fingerlockd answered without a key.")
                }
                // The released key must open this vault, as any key does: it is checked, never trusted.
                let vault = try Self.vaultCall { try passcodes.open(with: .masterKey(touch.key)) }
                // A vault moved before fingerlockd took settings: it learns them now, the vault open.
                if told == nil { tellServicePolicy(of: vault) }
                return (vault, touch)
            }
        }
    }

    /// `enroll` for a system-mode vault: the passcode proven to the service, which scans and keeps
    /// the template.
    func systemEnroll(
        _ finger: Finger, confirmReplacing: @Sendable (EnrolledPrint) async throws -> Bool,
        updates: @escaping @Sendable (EnrollmentUpdate) -> Void
    ) async throws -> EnrolledPrint {
        let storeID = try recordedStoreID
        let existing = try systemCall { try systemFingers.fingers(vault: storeID) }.first { $0.finger == finger }
        try requirePasscodeSource()
        let timeout = try systemCall { try systemFingers.policy(vault: storeID) }?.scanTimeout ?? SecuritySettings().scanTimeout
        return try await withSystemPasscodeProof(reason: "enroll a finger") { proof in
            if let existing, try await !confirmReplacing(Self.print(existing)) {
                throw AuthError(.userCancel, "\(finger) stays enrolled as it was; nothing was changed.")
            }
            let announced = Mutex(false)
            let enrolled = try await systemFingers.enroll(finger, proof: proof, timeout: timeout) { event in
                if announced.withLock({ value in defer { value = true }; return !value }) {
                    updates(.starting(Self.serviceReaderInfo))
                }
                updates(.progress(event))
            }
            return Self.print(enrolled)
        }
    }

    /// `forget` for a system-mode vault.
    func systemForget(_ finger: Finger?, covers: @Sendable (ReaderIdentity) -> Bool) async throws -> [ForgottenPrint] {
        let storeID = try recordedStoreID
        let targets = try systemCall { try systemFingers.fingers(vault: storeID) }
            .filter { ($0.finger == finger || finger == nil) && covers($0.reader) }
        if targets.isEmpty, let finger {
            throw AuthError(.notFound, "\(finger) is not enrolled; `fingerlock fingers` lists the enrolled ones.")
        }
        try requirePasscodeSource()
        return try await withSystemPasscodeProof(reason: "forget a finger") { proof in
            var forgotten: [ForgottenPrint] = []
            for target in targets {
                try await systemFingers.forget(target.finger, proof: proof)
                forgotten.append(ForgottenPrint(finger: target.finger, reader: target.reader, onReader: .nothingLeft))
            }
            return forgotten
        }
    }

    /// The fingers fingerlockd keeps for this vault (`fingers`): no passcode, as the owner's own list.
    func systemEnrolledPrints() throws -> [EnrolledPrint] {
        let storeID = try recordedStoreID
        return try systemCall { try systemFingers.fingers(vault: storeID) }.map(Self.print)
    }

    /// Asks for the passcode and runs `body` with its proof, asking again (at a terminal) when the
    /// service says it was wrong; the service counts every attempt.
    private func withSystemPasscodeProof<T>(
        reason: String, _ body: (SystemPasscodeProof) async throws -> T
    ) async throws -> T {
        let prompts = interaction.passcodeFromScript ? 1 : Self.passcodePromptsPerEvaluation
        for attempt in 1...prompts {
            let passcode = try await interaction.askSecret(prompt: "Passcode (\(reason)): ", typedAhead: "")
            let proof = try Self.vaultCall { try passcodes.systemPasscodeProof(passcode: passcode) }
            do {
                return try await body(proof)
            } catch let error as SystemFingerError {
                if case .slot(let slot) = error.code, case .wrongPasscode = slot.code, attempt < prompts {
                    interaction.notify("Wrong passcode, try again.")
                    continue
                }
                throw Self.authError(systemFinger: error)
            }
        }
        throw AuthError(.authenticationFailed, "Wrong passcode.")
    }

    func systemCall<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SystemFingerError {
            throw Self.authError(systemFinger: error)
        }
    }

    func asyncSystemCall<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as SystemFingerError {
            throw Self.authError(systemFinger: error)
        }
    }

    /// Stands for the reader of a key released without a scan (reuse window).
    static let serviceReader = ReaderIdentity(driver: "fingerlockd", deviceID: "0")

    /// Stands for the service's reader in enrollment's first update: its details stay in the service.
    static let serviceReaderInfo = ReaderInfo(
        name: "fingerlockd's fingerprint reader", driver: "fingerlockd", deviceID: "0", scanType: .press,
        enrollStages: 0, features: [])

    static func print(_ finger: SystemEnrolledFinger) -> EnrolledPrint {
        // No template leaves the service: the print only names the finger, its reader and its date.
        EnrolledPrint(finger: finger.finger, reader: finger.reader, template: Data(), enrolled: finger.enrolled)
    }

    static func authError(systemFinger error: SystemFingerError) -> AuthError {
        switch error.code {
        case .passcodeRequired(let lockout):
            if lockout {
                return AuthError(
                    .biometryLockout,
                    "Too many failed touches: fingerlockd forgot the key, so the passcode is needed.")
            }
            return AuthError(
                .biometryNotAvailable,
                "The passcode is needed first (after a reboot or a restart of fingerlockd, `fingerlock lock`, or when the key expires).",
                unavailability: .noCachedKey)
        case .noFingerEnrolled(let reader):
            return AuthError(
                .biometryNotEnrolled, "No finger is enrolled on fingerlockd's reader \(reader); run `fingerlock enroll`.")
        case .fingerNotEnrolled(let finger):
            return AuthError(
                .notFound, "\(finger) is not enrolled; `fingerlock fingers` lists the enrolled ones.")
        case .noMatch:
            return AuthError(.authenticationFailed, "No match.")
        case .retry(let reason):
            return AuthError(.authenticationFailed, "The reader could not read the finger: \(reason.hint)")
        case .timedOut:
            return AuthError(.timeout, "No finger touched fingerlockd's reader in time.")
        case .scanNeeded:
            // Only a release without a scan is refused so; the caller scans next.
            return AuthError(.biometryNotAvailable, "fingerlockd needs a touch to release the key.")
        case .reader(let error):
            return authError(error)
        case .wrongReaderKind(let reader, let kind):
            return wrongReaderKind(reader, vaultKind: kind)
        case .readerMismatch(let reader, let serviceReader):
            let theirs = serviceReader.isEmpty ? "fingerlockd has no reader" : "fingerlockd's reader is \(serviceReader)"
            return AuthError(.biometryNotAvailable, "It was enrolled on \(reader) and \(theirs).")
        case .slot(let error):
            let vaultError = VaultError.fromService(error)
            if case .wrongPasscode = error.code { return AuthError(.authenticationFailed, vaultError.message) }
            return authError(vaultError)
        }
    }
}
