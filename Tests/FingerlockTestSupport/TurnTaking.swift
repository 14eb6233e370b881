import Synchronization

/// Turns at something a whole test process shares: exclusive turns (one at a time) and shared ones
/// (side by side, never beside an exclusive one), first come first served, waited for without
/// holding a thread. `.exclusive(to:)` takes exclusive turns per resource; the in-process CLI runner
/// takes them for the descriptors of its process (`InProcessCLI`).
public final class TurnTaking: Sendable {
    public init() {}

    private struct State {
        var shared = 0
        var exclusive = false
        var waiting: [(exclusive: Bool, continuation: CheckedContinuation<Void, Never>)] = []

        func admits(exclusive: Bool) -> Bool { exclusive ? !self.exclusive && shared == 0 : !self.exclusive }

        mutating func take(exclusive: Bool) {
            if exclusive { self.exclusive = true } else { shared += 1 }
        }
    }

    private let state = Mutex(State())

    public func enter(exclusive: Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                // Behind anyone already waiting, so a run with a descriptor is never starved.
                guard state.waiting.isEmpty, state.admits(exclusive: exclusive) else {
                    state.waiting.append((exclusive, continuation))
                    return false
                }
                state.take(exclusive: exclusive)
                return true
            }
            if now { continuation.resume() }
        }
    }

    public func leave(exclusive: Bool) {
        let admitted = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            if exclusive { state.exclusive = false } else { state.shared -= 1 }
            var admitted: [CheckedContinuation<Void, Never>] = []
            while let next = state.waiting.first, state.admits(exclusive: next.exclusive) {
                state.waiting.removeFirst()
                state.take(exclusive: next.exclusive)
                admitted.append(next.continuation)
            }
            return admitted
        }
        for continuation in admitted { continuation.resume() }
    }
}
