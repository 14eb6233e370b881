import Fingerprint
import Synchronization

/// One scan at a time on the service's reader, in arrival order. A waiter gives up when its own
/// timeout passes (the reader is reported busy) or its task is cancelled (its client went away),
/// leaving the queue without holding anyone up.
final class ScanQueue: Sendable {
    private struct State {
        var busy = false
        var nextID: UInt64 = 0
        /// Waiting, in order.
        var order: [UInt64] = []
        var continuations: [UInt64: CheckedContinuation<Void, any Error>] = [:]
        /// Handed the reader before its continuation was registered.
        var granted: Set<UInt64> = []
        /// Gave up before its continuation was registered.
        var abandoned: [UInt64: any Error] = [:]
    }

    private let state = Mutex(State())

    /// Runs `body` once the reader is free, waiting at most `limit` for the turn.
    func run<T: Sendable>(waitingAtMost limit: Duration, _ body: () async throws -> T) async throws -> T {
        try await acquire(waitingAtMost: limit)
        defer { release() }
        try Task.checkCancellation()
        return try await body()
    }

    /// How many scans wait behind the running one (for tests).
    var waiting: Int { state.withLock { $0.order.count } }

    private func acquire(waitingAtMost limit: Duration) async throws {
        let id: UInt64? = state.withLock { state in
            if !state.busy {
                state.busy = true
                return nil
            }
            state.nextID += 1
            state.order.append(state.nextID)
            return state.nextID
        }
        guard let id else { return }
        let timer = Task { [self] in
            try await Task.sleep(for: limit)
            abandon(
                id,
                FingerprintError(
                    .busy, "The fingerprint reader stayed busy with other scans for \(limit.components.seconds) s."))
        }
        defer { timer.cancel() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Void, any Error>? = state.withLock { state in
                    if let error = state.abandoned.removeValue(forKey: id) { return .failure(error) }
                    if state.granted.remove(id) != nil { return .success(()) }
                    state.continuations[id] = continuation
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            abandon(id, CancellationError())
        }
    }

    private func abandon(_ id: UInt64, _ error: any Error) {
        let continuation: CheckedContinuation<Void, any Error>? = state.withLock { state in
            // Not waiting any more: it has the reader, and gives it back itself.
            guard let index = state.order.firstIndex(of: id) else { return nil }
            state.order.remove(at: index)
            guard let continuation = state.continuations.removeValue(forKey: id) else {
                state.abandoned[id] = error
                return nil
            }
            return continuation
        }
        continuation?.resume(throwing: error)
    }

    private func release() {
        let continuation: CheckedContinuation<Void, any Error>? = state.withLock { state in
            guard !state.order.isEmpty else {
                state.busy = false
                return nil
            }
            let next = state.order.removeFirst()
            guard let continuation = state.continuations.removeValue(forKey: next) else {
                state.granted.insert(next)
                return nil
            }
            return continuation
        }
        continuation?.resume()
    }
}
