internal import CFprint
import Synchronization

/// Cancellation and timeout for one libfprint operation.
///
/// The `GCancellable` is created, attached and freed on the libfprint thread; `cancel(_:)` may come
/// from any thread (a task-cancellation handler, the timeout timer). The mutex makes sure the
/// cancellable is not freed while another thread cancels it.
final class OperationControl: Sendable {
    private struct State {
        var cancellable: ThreadBound<UnsafeMutablePointer<GCancellable>>?
        var reason: CancelReason?
        var deadline: ContinuousClock.Instant?
    }

    private let state = Mutex(State())
    /// How long to wait for each touch; nil for operations without a finger.
    let timeout: Duration?

    init(timeout: Duration?) {
        self.timeout = timeout
        if let timeout {
            state.withLock { $0.deadline = .now + timeout }
        }
    }

    /// Why the operation was cancelled, if it was.
    var reason: CancelReason? { state.withLock { $0.reason } }

    /// Cancels the operation; the first reason wins. Safe from any thread.
    func cancel(_ reason: CancelReason) {
        state.withLock { state in
            if state.reason == nil { state.reason = reason }
            if let cancellable = state.cancellable { g_cancellable_cancel(cancellable.pointer) }
        }
    }

    /// Pushes the deadline back by a full timeout (each enroll stage gets its own).
    func rearm() {
        guard let timeout else { return }
        state.withLock { $0.deadline = .now + timeout }
    }

    /// On the libfprint thread: creates the operation's `GCancellable`, runs `body` with it and frees
    /// it. Throws the cancellation reason's error without running `body` if already cancelled.
    func withCancellable<T>(_ body: (UnsafeMutablePointer<GCancellable>) throws -> T) throws -> T {
        let cancellable = g_cancellable_new()!
        let alreadyCancelled: CancelReason? = state.withLock { state in
            if state.reason == nil { state.cancellable = ThreadBound(cancellable) }
            return state.reason
        }
        defer {
            state.withLock { $0.cancellable = nil }
            g_object_unref(cancellable)
        }
        if let alreadyCancelled {
            throw LibfprintErrorMapping.map(
                GLibError(domain: .io, code: IOErrorCode.cancelled.rawValue, message: ""),
                cancelledBecause: alreadyCancelled)
        }
        return try body(cancellable)
    }

    /// Waits until the deadline passes and then cancels with `.timeout`; returns at once without a timeout.
    /// Meant to run in a task that is cancelled when the operation ends.
    func enforceTimeout() async {
        guard let timeout else { return }
        while !Task.isCancelled {
            guard let deadline = state.withLock({ $0.deadline }) else { return }
            if deadline <= .now {
                cancel(.timeout(timeout))
                return
            }
            do {
                try await Task.sleep(until: deadline, clock: .continuous)
            } catch {
                return
            }
        }
    }
}
