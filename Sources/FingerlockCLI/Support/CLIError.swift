/// The CLI contract's exit statuses and their `--json` names.
public enum ExitStatus: Int32, Sendable, CaseIterable {
    case success = 0
    case authFailed = 1
    case cancelled = 2
    case lockedOut = 3
    case readerError = 4
    case notFound = 5
    case dataError = 6
    case notSetUp = 7
    case needsPasscode = 8
    case usage = 64

    public var name: String {
        switch self {
        case .success: "success"
        case .authFailed: "auth_failed"
        case .cancelled: "cancelled"
        case .lockedOut: "locked_out"
        case .readerError: "reader_error"
        case .notFound: "not_found"
        case .dataError: "data_error"
        case .notSetUp: "not_set_up"
        case .needsPasscode: "needs_passcode"
        case .usage: "usage"
        }
    }
}

/// An error the CLI reports as one line on stderr and an exit status.
public struct CLIError: Error, Equatable, Sendable, CustomStringConvertible {
    public var status: ExitStatus
    public var message: String

    public init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    public var description: String { message }
}
