#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Starts `body` on a new, detached POSIX thread: fingerlockd's accept loop and connections (blocked
/// in `accept`/`recv`) and blocking bus calls must not hold one of Swift concurrency's few
/// cooperative threads.
///
/// Not Foundation's `Thread`: that is the one API here that needs full Foundation, whose
/// internationalisation data (ICU, 34 MB) would then be linked into fingerlockd, where every other
/// module needs only FoundationEssentials.
public enum DetachedThread {
    public static func start(_ body: @escaping @Sendable () -> Void) {
        final class Box: Sendable {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        let box = Unmanaged.passRetained(Box(body))
        var thread = pthread_t()
        let created = pthread_create(
            &thread, nil,
            { argument in
                Unmanaged<Box>.fromOpaque(argument!).takeRetainedValue().body()
                return nil
            }, box.toOpaque())
        precondition(created == 0, "cannot start a thread (error \(created))")
        pthread_detach(thread)
    }
}

extension DetachedThread {
    /// Runs blocking `body` on a thread of its own and waits for it without blocking the pool.
    public static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            start { continuation.resume(with: Result { try body() }) }
        }
    }
}
