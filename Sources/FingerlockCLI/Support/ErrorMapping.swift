import Auth
import Fingerprint
import NoteSync
import SafeFiles
import Vault

extension CLIError {
    /// Maps any error from the layers below to the contract's exit status and a one-line message.
    static func from(_ error: any Error) -> CLIError {
        switch error {
        case let error as CLIError:
            return error
        case is CancellationError:
            return CLIError(.cancelled, "Cancelled; nothing was changed.")
        case let error as FingerprintError:
            return CLIError(status(for: error.code), error.message)
        case let error as AuthError:
            return CLIError(status(for: error.code), advised(error.message, error.remedy))
        case let error as VaultError:
            return CLIError(status(for: error.code), advised(error.message, error.remedy))
        case let error as SyncError:
            return CLIError(status(for: error.code), error.message)
        case let error as SafeFilesError:
            // A file in the way of one that must be new is a choice of path to make again, as `backup`'s.
            return CLIError(error.code == .exists ? .usage : .dataError, error.message)
        case let error as SimulatedScript.ParseError:
            return CLIError(.usage, error.description)
        default:
            return CLIError(.dataError, String(describing: error))
        }
    }

    static func status(for code: SyncError.Code) -> ExitStatus {
        switch code {
        case .notSetUp: .notSetUp
        // Nothing applied; run again with --allow-deletions (a terminal asks instead).
        case .massDeletion: .cancelled
        case .invalidInput: .usage
        case .tampered, .rewound, .missing, .git, .busy, .io: .dataError
        }
    }

    static func status(for code: FingerprintError.Code) -> ExitStatus {
        switch code {
        case .noReader, .permissionDenied, .busy, .unplugged, .tooHot, .storageFull, .duplicate, .notSupported,
            .incompatiblePrint, .deviceError:
            .readerError
        case .timedOut: .authFailed
        case .userFallback: .cancelled
        case .invalidPrint: .dataError
        case .printNotFound: .notFound
        }
    }

    static func status(for code: AuthError.Code) -> ExitStatus {
        switch code {
        case .authenticationFailed, .timeout: .authFailed
        case .userCancel, .userFallback, .systemCancel: .cancelled
        case .biometryLockout, .passcodeDelay: .lockedOut
        case .biometryNotAvailable: .readerError
        case .notFound: .notFound
        case .dataError: .dataError
        case .passcodeNotSet, .biometryNotEnrolled: .notSetUp
        case .passcodeRequired: .needsPasscode
        case .invalidInput: .usage
        case .serviceUnavailable: .readerError
        }
    }

    static func status(for code: VaultError.Code) -> ExitStatus {
        switch code {
        case .wrongPasscode, .wrongRecoveryKey: .authFailed
        // A key that stopped opening the vault mid-command: another process rekeyed or restored it.
        // A conflict to retry (data error), not a wrong passcode or finger (exit 1).
        case .wrongKey: .dataError
        case .notFound: .notFound
        case .ambiguous, .invalidInput, .alreadyExists: .usage
        case .sealerUnavailable: .readerError
        case .passcodeDelayed: .lockedOut
        default: .dataError
        }
    }

    /// The vault names no commands: its remedy is worded here, as the command that applies it.
    static func advised(_ message: String, _ remedy: VaultError.Remedy?) -> String {
        switch remedy {
        // "… The recovery key still opens the vault: run `fingerlock passcode reset`."
        case .resetPasscodeWithRecoveryKey:
            (message.hasSuffix(".") ? String(message.dropLast()) : message) + ": run `fingerlock passcode reset`."
        case nil: message
        }
    }
}
