public import Foundation

/// Consecutive failures, kept across invocations.
public struct AttemptState: Codable, Equatable, Sendable {
    /// Touches that matched no enrolled finger since the last success (retries and timeouts don't count).
    public var failedTouches = 0
    /// Wrong passcodes (or recovery keys) since the last correct one.
    public var failedPasscodes = 0
    /// When the last wrong passcode was counted.
    public var lastPasscodeFailure: Date?

    public init(failedTouches: Int = 0, failedPasscodes: Int = 0, lastPasscodeFailure: Date? = nil) {
        self.failedTouches = failedTouches
        self.failedPasscodes = failedPasscodes
        self.lastPasscodeFailure = lastPasscodeFailure
    }
}

/// Where the counters live. Every change is a read-modify-write under a lock, written before it
/// returns, so a killed process or a parallel run cannot skip a failure. Passcode counters are also
/// durable across an OS crash; the touch counter need not be (the cached key it guards is gone then).
public protocol AttemptStore: Sendable {
    func read() throws -> AttemptState
    @discardableResult
    func update<T>(_ body: (inout AttemptState) throws -> T) throws -> T
}
