import Fingerprint
import SafeFiles

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
        case let error as SafeFilesError:
            return CLIError(.dataError, error.message)
        case let error as SimulatedScript.ParseError:
            return CLIError(.usage, error.description)
        default:
            return CLIError(.dataError, String(describing: error))
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
}
