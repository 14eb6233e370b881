/// Everything sync can refuse, with its one-line sentence.
public struct SyncError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// Not set up: `sync init` or `sync join` first.
        case notSetUp
        /// A record altered, moved, from another vault, or the format file of another vault.
        case tampered
        /// The remote went back: records this machine applied (or wrote) are gone.
        case rewound
        /// A record is missing between others, or a record depends on one the remote lacks.
        case missing
        /// Applying would delete more notes than the limit; nothing was applied.
        case massDeletion
        /// git failed (unreachable, refused, timed out): what git said.
        case git
        /// Another sync of this vault is running.
        case busy
        case invalidInput
        case io
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
