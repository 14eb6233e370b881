#if canImport(Glibc)
    import Glibc
#endif

/// One allocation of key material, on pages of its own (mmap): locked into RAM (mlock) so they are
/// never written to swap, left out of core dumps (MADV_DONTDUMP), and zeroed before they go back to
/// the kernel. Made by `LockedMemory`, which says once when the system refuses the lock; the buffer
/// then still works, unlocked (`isLocked` false).
///
/// `@unchecked Sendable`, invariant: the pages are written only while the buffer is made (the copy
/// in `init`) and while it is released (the zeroing in `deinit`), when no other reference exists;
/// between the two they are only read, so any number of threads may read them at once.
public final class LockedBuffer: @unchecked Sendable {
    private let base: UnsafeMutableRawPointer
    private let mapped: Int
    private let release: @Sendable (UnsafeMutableRawBufferPointer) -> Void
    public let count: Int
    /// Why mlock refused the pages (its errno: RLIMIT_MEMLOCK, typically); nil when they are locked.
    public let lockError: Int32?
    public var isLocked: Bool { lockError == nil }

    /// Nil when the pages cannot be mapped (out of memory). `release` unmaps the zeroed pages.
    init?(
        copying bytes: UnsafeRawBufferPointer, release: @escaping @Sendable (UnsafeMutableRawBufferPointer) -> Void
    ) {
        let page = max(Int(sysconf(Int32(_SC_PAGESIZE))), 4096)
        let size = max(1, (bytes.count + page - 1) / page) * page
        guard let pages = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
            pages != MAP_FAILED
        else { return nil }
        // Before a byte is written: a page locked later could have been swapped out in between.
        lockError = mlock(pages, size) == 0 ? nil : errno
        _ = madvise(pages, size, MADV_DONTDUMP)
        // Not copied into a child by fork (a child of fingerlockd has no business with keys).
        _ = madvise(pages, size, MADV_DONTFORK)
        if let source = bytes.baseAddress { pages.copyMemory(from: source, byteCount: bytes.count) }
        base = pages
        mapped = size
        count = bytes.count
        self.release = release
    }

    deinit {
        explicit_bzero(base, mapped)
        release(UnsafeMutableRawBufferPointer(start: base, count: mapped))
        if isLocked { _ = munlock(base, mapped) }
        _ = munmap(base, mapped)
    }

    /// The bytes, for reading only, valid inside `body`.
    public func withUnsafeBytes<T, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> T) throws(E) -> T {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }
}
