internal import CFprint
import Synchronization

/// Cancellation and timeout for one libfprint operation.
///
/// The `GCancellable` is created, attached and freed on the libfprint thread; `cancel(_:)` may come
/// from any thread (a task-cancellation handler). The mutex makes sure the cancellable is not freed
/// while another thread cancels it.
///
/// The timeout is a GLib timeout source on the default main context, which libfprint's `*_sync` calls
/// iterate: it fires on the libfprint thread in the middle of the operation, costs no extra thread or
/// task, and counts from the moment the operation starts (not while it waits in the queue).
final class OperationControl: Sendable {
    private struct State {
        var cancellable: ThreadBound<UnsafeMutablePointer<GCancellable>>?
        var reason: CancelReason?
        var deadline: ContinuousClock.Instant?
        /// The pending GLib timeout source, 0 when none (used on the libfprint thread only).
        var timerSource: guint = 0
    }

    private let state = Mutex(State())
    /// How long to wait for each touch; nil for operations without a finger.
    let timeout: Duration?

    init(timeout: Duration?) {
        self.timeout = timeout
    }

    /// Why the operation was cancelled, if it was.
    var reason: CancelReason? { state.withLock { $0.reason } }

    /// Cancels the operation; the first reason wins. Safe from any thread.
    func cancel(_ reason: CancelReason) {
        state.withLock { state in
            if state.reason == nil { state.reason = reason }
            if let cancellable = state.cancellable { libfprint.g_cancellable_cancel(cancellable.pointer) }
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
        let cancellable = libfprint.g_cancellable_new()!
        let alreadyCancelled: CancelReason? = state.withLock { state in
            if state.reason == nil { state.cancellable = ThreadBound(cancellable) }
            return state.reason
        }
        defer {
            let source = state.withLock { state in
                state.cancellable = nil
                defer { state.timerSource = 0 }
                return state.timerSource
            }
            if source != 0 { _ = libfprint.g_source_remove(source) }
            libfprint.g_object_unref(cancellable)
        }
        if let alreadyCancelled {
            throw LibfprintErrorMapping.map(
                GLibError(domain: .io, code: IOErrorCode.cancelled.rawValue, message: ""),
                cancelledBecause: alreadyCancelled)
        }
        if let timeout {
            state.withLock { $0.deadline = .now + timeout }
            armTimer()
        }
        return try body(cancellable)
    }

    /// On the libfprint thread: adds a GLib timeout source firing at the deadline. The source holds a
    /// reference to this object, released when the source is destroyed.
    private func armTimer() {
        guard let deadline = state.withLock({ $0.deadline }) else { return }
        let remaining = max(deadline - .now, .zero)
        let milliseconds = guint(clamping: Int((remaining.seconds * 1000).rounded(.up)))
        // Priority 0 is G_PRIORITY_DEFAULT; the callback's 0 is G_SOURCE_REMOVE (the macros are not imported).
        let source = libfprint.g_timeout_add_full(
            0, milliseconds,
            { data in
                Unmanaged<OperationControl>.fromOpaque(data!).takeUnretainedValue().timerFired()
                return 0
            },
            Unmanaged.passRetained(self).toOpaque(),
            { data in Unmanaged<OperationControl>.fromOpaque(data!).release() })
        state.withLock { $0.timerSource = source }
    }

    /// On the libfprint thread: cancels when the deadline has passed, otherwise (it was pushed back by
    /// `rearm()`) waits again.
    private func timerFired() {
        let deadline = state.withLock { state in
            state.timerSource = 0
            return state.deadline
        }
        guard let timeout, let deadline else { return }
        if deadline <= .now {
            cancel(.timeout(timeout))
        } else {
            armTimer()
        }
    }
}
