#if canImport(Glibc)
    import Glibc
#endif

/// Keeps one passcode attempt visibly in flight while its run checks it, so that a concurrent
/// attempt the count would refuse waits for its result instead (a right one clears the count).
/// It ends when this is dropped, and — the point of a kernel lock — when its process dies, however
/// it dies: its count, already in the record, then stays a wrong passcode.
public final class PasscodeHold: Sendable {
    /// The descriptor holding the lock; -1 for a store that keeps none.
    private let descriptor: Int32

    init(descriptor: Int32 = -1) {
        self.descriptor = descriptor
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }
}
