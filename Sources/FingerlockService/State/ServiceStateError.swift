/// A failure of the service's own state, with what went wrong for the log (never key material).
public struct ServiceStateError: Error, Sendable, CustomStringConvertible {
    public enum Code: Sendable, Equatable {
        /// The user already has this many vaults.
        case tooManyVaults(limit: Int)
        case damaged, io
    }
    public var code: Code
    public var description: String

    public init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }
}
