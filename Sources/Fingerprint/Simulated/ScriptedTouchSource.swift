import Synchronization

/// Touches consumed one scan at a time from the start of a list; once it is used up, every further
/// scan is a timeout.
public final class ScriptedTouchSource: SimulatedTouchSource {
    private let remaining: Mutex<ArraySlice<SimulatedTouch>>

    public init(_ touches: [SimulatedTouch]) {
        remaining = Mutex(touches[...])
    }

    public func nextTouch(for purpose: SimulatedScanPurpose, timeout: Duration) async throws -> SimulatedTouch {
        try Task.checkCancellation()
        let touch = remaining.withLock { $0.popFirst() } ?? .timeout
        if touch == .hold {
            // Throws CancellationError at once when the scan is cancelled.
            try await Task.sleep(for: timeout)
            return .timeout
        }
        return touch
    }

    /// How many scripted touches are left.
    public var remainingCount: Int { remaining.withLock { $0.count } }
}
