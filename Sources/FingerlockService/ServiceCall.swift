public import FoundationEssentials

/// What one message starts: an answer at once, or a long call (a scan) that the connection runs
/// while it watches for its client going away.
public enum ServiceCall: Sendable {
    /// The reply (NUL included), or nil for a `oneway` call.
    case reply(Data?)
    case long(LongCall)
}

/// A call that waits for the reader. `run` sends its intermediate replies (a `more` call's) through
/// `emit`, which says whether the client took them, and returns the last reply, or nil when there
/// is nothing left to say (the call was cancelled: its client is gone or the service is stopping).
/// Cancelling the task that runs it cancels the scan.
public struct LongCall: Sendable {
    public let run: @Sendable (_ emit: @escaping @Sendable (Data) -> Bool) async -> Data?

    public init(run: @escaping @Sendable (_ emit: @escaping @Sendable (Data) -> Bool) async -> Data?) {
        self.run = run
    }
}
