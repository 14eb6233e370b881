#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Starts `body` on a new, detached POSIX thread: the accept loop and each connection block in
/// `accept`/`recv` and must not hold one of Swift concurrency's few cooperative threads.
///
/// Not Foundation's `Thread`: that is the one API here that needs full Foundation, whose
/// internationalisation data (ICU, 34 MB) would then be linked into fingerlockd, where every other
/// module needs only FoundationEssentials.
enum DetachedThread {
    static func start(_ body: @escaping @Sendable () -> Void) {
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
