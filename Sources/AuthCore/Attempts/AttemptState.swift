public import FoundationEssentials

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
///
/// Beside them, the passcode attempts in flight: counted in `failedPasscodes` like any other until
/// judged, and still being checked by a live run. Both calls belong in `update`'s body, under the
/// counters' lock, so that they agree with the count.
public protocol AttemptStore: Sendable {
    func read() throws -> AttemptState
    @discardableResult
    func update<T>(_ body: (inout AttemptState) throws -> T) throws -> T
    /// How many attempts are in flight, of at most `capacity`.
    func passcodesInFlight(capacity: Int) throws -> Int
    /// Shows one more attempt in flight until the hold is dropped or its process dies; nil when
    /// `capacity` are already.
    func holdPasscodeInFlight(capacity: Int) throws -> PasscodeHold?
}

/// A store that keeps no attempts in flight (counters in memory, for tests): every attempt counted
/// is a wrong passcode until judged, and a delay is refused at once, as before there were any.
extension AttemptStore {
    public func passcodesInFlight(capacity: Int) throws -> Int { 0 }
    public func holdPasscodeInFlight(capacity: Int) throws -> PasscodeHold? { PasscodeHold() }
}
