public import Foundation
import Synchronization

/// The wall clock of a test, moved by the test: what the code under test gets as its
/// `now: @Sendable () -> Date`. Shared by every test target (the vault's, the policy's, the service's,
/// the parity scenarios') so each does not keep a copy of its own.
public final class TestClock: Sendable {
    private let current: Mutex<Date>
    private let step: TimeInterval

    /// - Parameters:
    ///   - start: the first date (default: a fixed one in 2027, so no test depends on today).
    ///   - step: how far every reading moves the clock before it answers; 0 (the default) keeps it
    ///     still until the test calls `advance`. A step gives every change a distinct, known date.
    public init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000), advancingEachReadingBy step: TimeInterval = 0) {
        current = Mutex(start)
        self.step = step
    }

    public func now() -> Date {
        current.withLock {
            $0 += step
            return $0
        }
    }

    public func advance(_ seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
}
