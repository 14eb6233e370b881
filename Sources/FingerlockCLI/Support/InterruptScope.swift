#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Synchronization

/// Counts SIGINTs. Signal dispositions are process-wide, so the latch is too; it is only ever
/// incremented (lock-free, async-signal-safe) by the handler and read by `withInterruptCancellation`.
private enum InterruptLatch {
    static let count = Atomic<Int>(0)
}

/// Runs `body` so that Ctrl-C (SIGINT) cancels it instead of killing the process: the operation
/// unwinds (closing the reader, restoring the terminal, saving nothing) and the caller decides what
/// a cancel means.
func withInterruptCancellation<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
    let before = InterruptLatch.count.load(ordering: .acquiring)
    var action = sigaction()
    action.__sigaction_handler.sa_handler = { _ in _ = InterruptLatch.count.add(1, ordering: .releasing) }
    sigemptyset(&action.sa_mask)
    var previous = sigaction()
    sigaction(SIGINT, &action, &previous)
    defer { sigaction(SIGINT, &previous, nil) }

    let task = Task { try await body() }
    let watcher = Task {
        while !Task.isCancelled {
            if InterruptLatch.count.load(ordering: .acquiring) != before {
                task.cancel()
                return
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }
    defer { watcher.cancel() }
    return try await withTaskCancellationHandler {
        try await task.value
    } onCancel: {
        task.cancel()
    }
}
