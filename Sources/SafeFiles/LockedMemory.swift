import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Makes `LockedBuffer`s for one process (fingerlockd's key cache), and says once, through
/// `warning`, when the system refuses to lock them (RLIMIT_MEMLOCK, typically): the keys are then
/// kept anyway, in memory that may be swapped, rather than refusing to unlock.
public final class LockedMemory: Sendable {
    private let warning: @Sendable (String) -> Void
    private let inspectRelease: @Sendable (UnsafeRawBufferPointer) -> Void
    private let warned = Mutex(false)

    /// `inspectRelease` sees each buffer's pages at release, zeroed, just before they are unmapped
    /// (for tests; nothing by default).
    public init(
        warning: @escaping @Sendable (String) -> Void,
        inspectRelease: @escaping @Sendable (UnsafeRawBufferPointer) -> Void = { _ in }
    ) {
        self.warning = warning
        self.inspectRelease = inspectRelease
    }

    /// A locked copy of `bytes`; nil only when no memory can be mapped for it.
    public func buffer(copying bytes: UnsafeRawBufferPointer) -> LockedBuffer? {
        let inspect = inspectRelease
        guard let buffer = LockedBuffer(copying: bytes, release: { inspect(UnsafeRawBufferPointer($0)) }) else {
            return nil
        }
        if let error = buffer.lockError {
            let first = warned.withLock { warned in
                defer { warned = true }
                return !warned
            }
            if first {
                warning(
                    "cannot lock key memory (mlock: \(String(cString: strerror(error)))): cached keys stay in memory "
                        + "that may be swapped to disk; raise LimitMEMLOCK (RLIMIT_MEMLOCK) to lock them. Said once.")
            }
        }
        return buffer
    }
}
