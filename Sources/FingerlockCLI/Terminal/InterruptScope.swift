import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

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
    let restore = latchInterrupts()
    defer { restore() }

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

/// Makes SIGINT only count (no termination) until the returned closure restores the previous
/// disposition. Unlike SIG_IGN, a handler is reset by exec, so a child (an editor) still gets
/// Ctrl-C as usual.
func latchInterrupts() -> () -> Void {
    var action = sigaction()
    action.__sigaction_handler.sa_handler = { _ in _ = InterruptLatch.count.add(1, ordering: .releasing) }
    sigemptyset(&action.sa_mask)
    var previous = sigaction()
    sigaction(SIGINT, &action, &previous)
    return { sigaction(SIGINT, &previous, nil) }
}

/// The last termination signal (SIGTERM, SIGHUP, SIGQUIT) received while one was latched; 0 for none.
private enum TerminationLatch {
    static let signal = Atomic<Int32>(0)
}

/// A termination signal arrived while plaintext or the terminal needed cleaning up first: the
/// cleanup has run; the process should now die of `signal`.
struct TerminatedBySignal: Error {
    let signal: Int32
}

/// Until the returned closure runs, SIGTERM, SIGHUP and SIGQUIT are only recorded, so the code in
/// between can restore the terminal or shred an editor file before the process dies of them.
func latchTerminationSignals() -> () -> Void {
    var action = sigaction()
    action.__sigaction_handler.sa_handler = { signal in TerminationLatch.signal.store(signal, ordering: .releasing) }
    sigemptyset(&action.sa_mask)
    let signals = [SIGTERM, SIGHUP, SIGQUIT]
    var previous: [Glibc.sigaction] = signals.map { _ in Glibc.sigaction() }
    for index in signals.indices { sigaction(signals[index], &action, &previous[index]) }
    return {
        for index in signals.indices { sigaction(signals[index], &previous[index], nil) }
    }
}

/// The termination signal recorded by `latchTerminationSignals`, if any.
var pendingTerminationSignal: Int32? {
    let signal = TerminationLatch.signal.load(ordering: .acquiring)
    return signal == 0 ? nil : signal
}

/// Throws `TerminatedBySignal` when a termination signal is pending.
func checkTerminationSignal() throws {
    if let signal = pendingTerminationSignal { throw TerminatedBySignal(signal: signal) }
}
