import Foundation
import Synchronization

/// A clock the test moves by hand.
final class ManualClock: Sendable {
    private let current: Mutex<Date>

    init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) { current = Mutex(start) }

    var now: Date { current.withLock { $0 } }

    func advance(_ seconds: Double) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
}
