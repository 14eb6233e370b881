import AuthCore
public import Fingerprint
import Foundation
import Vault

/// The one table that maps the layers below (reader, vault, keyring, counters, fingerlockd) onto
/// `AuthError`, and the sentences more than one use case says.
extension AuthError {
    /// Maps the layers below onto `AuthError`.
    static func from(_ error: any Error) -> AuthError {
        switch error {
        case let error as AuthError:
            return error
        case is CancellationError:
            return AuthError(.userCancel, "Cancelled.")
        case let error as FingerprintError:
            switch error.code {
            case .timedOut: return AuthError(.timeout, error.message)
            case .userFallback: return AuthError(.userFallback, error.message, detail: .userFallbackTyped(""))
            case .noReader: return AuthError(.biometryNotAvailable, error.message, unavailability: .noReader)
            case .permissionDenied: return AuthError(.biometryNotAvailable, error.message, unavailability: .noPermission)
            case .busy: return AuthError(.biometryNotAvailable, error.message, unavailability: .busy)
            case .unplugged: return AuthError(.biometryNotAvailable, error.message, unavailability: .unplugged)
            default: return AuthError(.biometryNotAvailable, error.message, unavailability: .deviceError)
            }
        case let error as VaultError:
            switch error.code {
            case .notFound: return AuthError(.passcodeNotSet, error.message)
            case .sealerUnavailable: return AuthError(.serviceUnavailable, error.message, vaultError: error)
            case .passcodeDelayed: return AuthError(.passcodeDelay, error.message, vaultError: error)
            default: return AuthError(.dataError, error.message, vaultError: error)
            }
        case let error as KeyCacheError:
            return AuthError(.biometryNotAvailable, error.message, unavailability: .noKeyring)
        case let error as AttemptStoreError:
            return AuthError(.dataError, error.message)
        case let delay as PasscodeDelay:
            return passcodeDelayed(delay)
        case let busy as PasscodesStillInFlight:
            return AuthError(.passcodeDelay, busy.message)
        default:
            return AuthError(.dataError, String(describing: error))
        }
    }

    /// Runs `body`, mapping what it throws (see `from(_:)`).
    static func mapped<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch { throw from(error) }
    }

    /// fingerlockd's answers as the policy's errors.
    static func from(systemService error: SystemServiceError) -> AuthError {
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
        case .fingersChanged(let sentence):
            return AuthError(.biometryNotAvailable, sentence, unavailability: .fingersChanged)
        case .noFingerEnrolled(let reader):
            if reader.hasPrefix(FprintdDevice.driver + ":") {
                return noFingersAtFprintd(on: String(reader.dropFirst(FprintdDevice.driver.count + 1)))
            }
            return AuthError(
                .biometryNotEnrolled, "No finger is enrolled on fingerlockd's reader \(reader); run `fingerlock enroll`.")
        case .fingerNotEnrolled(let finger):
            return AuthError(
                .notFound, "\(finger) is not enrolled; `fingerlock fingers` lists the enrolled ones.")
        case .noMatch:
            return AuthError(.authenticationFailed, "No match.")
        case .printsLost(let sentence):
            return AuthError(.biometryNotAvailable, sentence, unavailability: .printNotStored)
        case .retry(let reason):
            return AuthError(.authenticationFailed, "The reader could not read the finger: \(reason.hint)")
        case .timedOut:
            return AuthError(.timeout, "No finger touched fingerlockd's reader in time.")
        case .scanNeeded:
            // Only a release without a scan is refused so; the caller scans next.
            return AuthError(.biometryNotAvailable, "fingerlockd needs a touch to release the key.")
        case .reader(let error):
            return from(error)
        case .wrongReaderKind(let reader, let kind):
            return wrongReaderKind(reader, vaultKind: kind)
        case .notAtSeat(let evidence, let unverifiable):
            // The same line as a remote session the CLI sees for itself, with fingerlockd's evidence.
            let message =
                unverifiable
                ? "fingerlockd does not scan: \(evidence)." : RemoteSessionDetector.sentence(evidence)
            return AuthError(.biometryNotAvailable, message, unavailability: .remoteSession)
        case .readerMismatch(let reader, let serviceReader):
            let theirs = serviceReader.isEmpty ? "fingerlockd has no reader" : "fingerlockd's reader is \(serviceReader)"
            return AuthError(.biometryNotAvailable, "It was enrolled on \(reader) and \(theirs).")
        case .wrongPasscode, .passcodeDelayed, .notRegistered, .tpmRefused:
            // Worded once, by the sealer the vault sees the same refusals through.
            let refusal = ServicePasscodeSealer.sealerError(error)
            switch refusal.code {
            case .wrongPasscode: return AuthError(.authenticationFailed, refusal.message)
            case .delayed: return AuthError(.passcodeDelay, refusal.message)
            case .unavailable: return AuthError(.serviceUnavailable, refusal.message)
            }
        case .unreachable(let message), .failure(let message):
            return AuthError(.serviceUnavailable, message)
        }
    }

    // MARK: - Sentences said by more than one use case

    static var passcodeNotSet: AuthError {
        AuthError(.passcodeNotSet, "No passcode is set yet: run `fingerlock passcode set` to create the vault.")
    }
    static var noCachedKey: AuthError {
        AuthError(
            .biometryNotAvailable,
            "The passcode is needed first (after a reboot, `fingerlock lock`, or when the cached key expires).",
            unavailability: .noCachedKey)
    }
    static var lockout: AuthError {
        AuthError(.biometryLockout, "Too many failed touches: fingerprint unlock is off until the passcode is entered.")
    }
    static func noFingersAtFprintd(on device: String) -> AuthError {
        AuthError(
            .biometryNotEnrolled,
            "fprintd has no finger enrolled for you on \(device): enroll one in your desktop's settings (or with"
                + " `fingerlock enroll --reader fprintd FINGER`), then run this again.")
    }
    static func notEnrolled(_ reader: ReaderIdentity) -> AuthError {
        AuthError(.biometryNotEnrolled, "No finger is enrolled on \(reader); run `fingerlock enroll`.")
    }
    static var systemModeTouch: AuthError {
        AuthError(
            .biometryNotAvailable, "System mode: the key is kept by fingerlockd, never in your keyring.",
            unavailability: .systemMode)
    }
    static func passcodeDelayed(_ delay: PasscodeDelay) -> AuthError {
        AuthError(
            .passcodeDelay,
            "Too many wrong passcodes (\(delay.failures)): try again in \(PasscodeDelays.describe(delay.left)).")
    }
    /// The line a request waiting behind another user's at fingerlockd's reader shows (`waiting`:
    /// "your touch", "this enrollment").
    public static func readerBusy(with request: OtherUsersRequest, waiting: String) -> String {
        "The reader is busy with another user's \(request.rawValue): do not touch it yet; \(waiting) waits its turn."
    }
    static let noTerminal = "There is no terminal to ask for it: use --passcode-stdin or --passcode-fd N."

    /// The one line for a reader of the wrong kind, in user mode and from fingerlockd alike.
    static func wrongReaderKind(_ reader: String, vaultKind: VaultKind) -> AuthError {
        let message =
            vaultKind == .hardware
            ? "This vault was set up with real hardware; it does not accept the test reader \(reader)."
            : "This is a test vault (set up with a simulated or virtual reader); it does not accept \(reader). "
                + newVaultForThisReader
        return AuthError(.biometryNotAvailable, message, unavailability: .wrongReaderKind)
    }

    /// A vault's kind is fixed when it is made: the notes move to a new vault made with this reader.
    static let newVaultForThisReader =
        "To use it, export the notes (`fingerlock export --output FILE`), set up a new vault with this reader in a "
        + "new data directory (`fingerlock --data-dir DIR passcode set`) and import them there "
        + "(`fingerlock --data-dir DIR notes import FILE`)."

    /// What leaving a scan means: the passcode, where one is offered; otherwise (`verify`) the
    /// command is cancelled — Enter, typing and Ctrl-C alike, since no passcode follows.
    static func scanLeft(typed: String, offerPasscode: Bool) -> AuthError {
        guard offerPasscode else { return AuthError(.userCancel, "Cancelled; no finger was checked.") }
        return AuthError(.userFallback, "The passcode was chosen.", detail: .userFallbackTyped(typed))
    }
}
