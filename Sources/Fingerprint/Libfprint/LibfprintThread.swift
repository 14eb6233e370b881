import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The one thread that makes every libfprint and GLib call of a process, one job at a time.
///
/// libfprint's `*_sync` calls iterate the process-wide default `GMainContext` and its drivers assume a
/// single thread, so all calls are funnelled through this serial queue. The only GLib call made
/// elsewhere is `g_cancellable_cancel`, which GIO documents as thread-safe and which exists to be
/// called from another thread.
///
/// A plain POSIX thread rather than Foundation's `Thread`: the latter links all of swift-corelibs-foundation
/// (CoreFoundation and ICU), which costs milliseconds at every process start.
final class LibfprintThread: Sendable {
    typealias Job = @Sendable () -> Void

    private struct Queue {
        var jobs: [Job] = []
        var stopping = false
    }

    /// Shared between this object and the thread's loop.
    private final class Shared: Sendable {
        let queue = Mutex(Queue())
        /// Counts queued jobs (plus one for the stop request) so the thread sleeps while idle.
        let pending = DispatchSemaphore(value: 0)

        /// Runs the loop until asked to stop with nothing left to do.
        func run() {
            while true {
                pending.wait()
                let next: Job? = queue.withLock { state in
                    state.jobs.isEmpty ? nil : state.jobs.removeFirst()
                }
                if let next {
                    next()
                } else if queue.withLock({ $0.stopping }) {
                    return
                }
            }
        }
    }

    private let shared = Shared()
    /// Whether the thread was started: by the first job, so a process that never asks libfprint for
    /// anything (`--help`, the simulated reader, system mode) never starts it.
    private let started = Mutex(false)

    init() {}

    /// Whether any job was ever submitted.
    var isStarted: Bool { started.withLock { $0 } }

    private func startIfNeeded() {
        started.withLock { started in
            guard !started else { return }
            started = true
            let box = Unmanaged.passRetained(shared)
            var thread = pthread_t()
            let created = pthread_create(
                &thread, nil,
                { argument in
                    let shared = Unmanaged<Shared>.fromOpaque(argument!).takeRetainedValue()
                    shared.run()
                    return nil
                }, box.toOpaque())
            precondition(created == 0, "cannot start the libfprint thread (error \(created))")
            pthread_detach(thread)
        }
    }

    /// Queues `job`; jobs run in submission order (those queued before `stop()` all run).
    func submit(_ job: @escaping Job) {
        startIfNeeded()
        shared.queue.withLock { $0.jobs.append(job) }
        shared.pending.signal()
    }

    /// Lets the thread exit once every job queued so far has run.
    func stop() {
        shared.queue.withLock { $0.stopping = true }
        shared.pending.signal()
    }

    /// Runs `body` on the thread and returns its result.
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            submit {
                continuation.resume(with: Result { try body() })
            }
        }
    }
}
