import Synchronization

/// A resource kept while it is in use and for `keep` after its last use, then let go: for
/// libfprint's context, which keeps GUsb's event thread waking every 2 s for as long as it lives,
/// so an idle service must not hold one. Whoever still uses the old one (a reader mid-scan) keeps
/// it alive, and it is handed out again rather than a second one being made beside it.
final class IdleReleased<Resource: AnyObject & Sendable>: Sendable {
    private struct State {
        var kept: Resource?
        weak var alive: Resource?
        var usedSinceCheck = false
        var timerRunning = false
    }

    private let make: @Sendable () -> Resource
    private let keep: Duration
    private let state: Mutex<State>

    init(keep: Duration, make: @escaping @Sendable () -> Resource) {
        self.make = make
        self.keep = keep
        state = Mutex(State())
    }

    /// The resource, made anew only when nobody holds the last one any more.
    func current() -> Resource {
        let (resource, startTimer) = state.withLock { state -> (Resource, Bool) in
            let resource = state.kept ?? state.alive ?? make()
            state.kept = resource
            state.alive = resource
            state.usedSinceCheck = true
            defer { state.timerRunning = true }
            return (resource, !state.timerRunning)
        }
        if startTimer { releaseWhenIdle() }
        return resource
    }

    /// Whether the service holds the resource itself now (for tests).
    var isKept: Bool { state.withLock { $0.kept != nil } }

    /// One timer while the resource is kept, none once it is let go: it wakes every `keep` while
    /// the resource is used and lets go at the first wake that finds no use since the last.
    private func releaseWhenIdle() {
        Task.detached { [self, keep] in
            while true {
                try? await Task.sleep(for: keep)
                let released = state.withLock { state in
                    if state.usedSinceCheck {
                        state.usedSinceCheck = false
                        return false
                    }
                    state.kept = nil
                    state.timerRunning = false
                    return true
                }
                if released { return }
            }
        }
    }
}
