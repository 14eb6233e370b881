import FingerlockProtocol
import Fingerprint
import Synchronization

/// One scan at a time on the service's reader, fair between users: each uid's scans wait in
/// arrival order behind one another, and the uids take turns, so a user who queues many scans
/// holds up another user by at most the one scan running when that user arrives (and one per
/// other waiting user). A user's second scan is not refused: it waits behind the first.
///
/// A waiter gives up when its own timeout passes (the reader is reported busy) or its task is
/// cancelled (its client went away), leaving the queue without holding anyone up.
final class ScanQueue: Sendable {
    private struct State {
        /// Whose scan has the reader, and what it does; nil while it is free.
        var holder: UInt32?
        var holding: ServiceInterface.ReaderHolder = .scan
        /// What each waiting scan does.
        var purposes: [UInt64: ServiceInterface.ReaderHolder] = [:]
        var nextID: UInt64 = 0
        /// Each uid's waiting scans, in arrival order (no empty lists).
        var waiting: [UInt32: [UInt64]] = [:]
        /// The uids with waiting scans, in the order they take their turns.
        var turns: [UInt32] = []
        var continuations: [UInt64: CheckedContinuation<Void, any Error>] = [:]
        /// Handed the reader before its continuation was registered.
        var granted: Set<UInt64> = []
        /// Gave up before its continuation was registered.
        var abandoned: [UInt64: any Error] = [:]

        /// The next scan to hand the reader to: the first uid in turn other than the one whose scan
        /// just ended (that one only when nobody else waits), which then goes to the back.
        mutating func next(after previous: UInt32?) -> (uid: UInt32, id: UInt64)? {
            guard let uid = turns.first(where: { $0 != previous }) ?? turns.first else { return nil }
            turns.removeAll { $0 == uid }
            var scans = waiting[uid] ?? []
            let id = scans.removeFirst()
            if scans.isEmpty {
                waiting[uid] = nil
            } else {
                waiting[uid] = scans
                turns.append(uid)
            }
            return (uid, id)
        }

        /// Takes a scan out of the line; false when it is not waiting (it has the reader).
        mutating func remove(_ id: UInt64, of uid: UInt32) -> Bool {
            guard var scans = waiting[uid], let index = scans.firstIndex(of: id) else { return false }
            scans.remove(at: index)
            purposes[id] = nil
            if scans.isEmpty {
                waiting[uid] = nil
                turns.removeAll { $0 == uid }
            } else {
                waiting[uid] = scans
            }
            return true
        }
    }

    private let state = Mutex(State())

    /// Runs `body` for `uid` once the reader is free and it is that uid's turn, waiting at most
    /// `limit` for it. `purpose` is what the scan does; when another user's request holds the reader
    /// as this one arrives, `waiting` is told what that request does (so its client can say so
    /// rather than take touches meant for the other one's).
    func run<T: Sendable>(
        for uid: UInt32, _ purpose: ServiceInterface.ReaderHolder = .scan, waitingAtMost limit: Duration,
        waiting: (ServiceInterface.ReaderHolder) -> Void = { _ in }, _ body: () async throws -> T
    ) async throws -> T {
        try await acquire(for: uid, purpose, waitingAtMost: limit, waiting: waiting)
        defer { release() }
        try Task.checkCancellation()
        return try await body()
    }

    /// How many scans wait behind the running one (for tests).
    var waiting: Int { state.withLock { $0.waiting.values.reduce(0) { $0 + $1.count } } }

    private func acquire(
        for uid: UInt32, _ purpose: ServiceInterface.ReaderHolder, waitingAtMost limit: Duration,
        waiting: (ServiceInterface.ReaderHolder) -> Void
    ) async throws {
        let (id, otherUsers): (UInt64?, ServiceInterface.ReaderHolder?) = state.withLock { state in
            guard let holder = state.holder else {
                state.holder = uid
                state.holding = purpose
                return (nil, nil)
            }
            state.nextID += 1
            if state.waiting[uid] == nil { state.turns.append(uid) }
            state.waiting[uid, default: []].append(state.nextID)
            state.purposes[state.nextID] = purpose
            return (state.nextID, holder == uid ? nil : state.holding)
        }
        guard let id else { return }
        if let otherUsers { waiting(otherUsers) }
        let timer = Task { [self] in
            try await Task.sleep(for: limit)
            abandon(
                id, of: uid,
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
            abandon(id, of: uid, CancellationError())
        }
    }

    private func abandon(_ id: UInt64, of uid: UInt32, _ error: any Error) {
        let continuation: CheckedContinuation<Void, any Error>? = state.withLock { state in
            // Not waiting any more: it has the reader, and gives it back itself.
            guard state.remove(id, of: uid) else { return nil }
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
            guard let (uid, next) = state.next(after: state.holder) else {
                state.holder = nil
                return nil
            }
            state.holder = uid
            state.holding = state.purposes.removeValue(forKey: next) ?? .scan
            guard let continuation = state.continuations.removeValue(forKey: next) else {
                state.granted.insert(next)
                return nil
            }
            return continuation
        }
        continuation?.resume()
    }
}
