import Fingerprint
import Synchronization

/// Touches the test queues as a scenario goes on, consumed one scan at a time by whichever reader
/// scans (the CLI's in user mode, fingerlockd's in system mode); with none queued a scan times out.
final class QueuedTouches: SimulatedTouchSource {
    private let queue = Mutex<[SimulatedTouch]>([])

    func queue(_ touches: SimulatedTouch...) {
        queue.withLock { $0 += touches }
    }

    /// Touches queued and not yet scanned.
    var waiting: Int { queue.withLock { $0.count } }

    func nextTouch(for purpose: SimulatedScanPurpose, timeout: Duration) async throws -> SimulatedTouch {
        try Task.checkCancellation()
        return queue.withLock { $0.isEmpty ? .timeout : $0.removeFirst() }
    }
}
