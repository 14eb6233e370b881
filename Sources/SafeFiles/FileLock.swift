#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// An exclusive `flock` on a file that is never renamed or replaced, so every process locks the same
/// inode. Released when the value is released (the descriptor closes).
public final class FileLock: Sendable {
    private let fd: Int32
    public let path: String

    /// The locked file, open for reading and writing, for a file that is its own lock. Valid while
    /// this value lives.
    public var descriptor: Int32 { fd }

    /// Waits for the lock, polling, for at most `timeout`; then fails with a message naming the wait.
    /// With `creating` false a missing file is not created: it fails with `.missing`.
    public init(path: String, timeout: Duration = .seconds(30), creating: Bool = true) throws(SafeFilesError) {
        self.path = path
        let fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | (creating ? O_CREAT : 0), 0o600)
        guard fd >= 0 else {
            if !creating && errno == ENOENT { throw SafeFilesError(.missing, path: path, "\(path) does not exist.") }
            throw .io("open lock file", path: path, errno: errno)
        }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        var pause: UInt32 = 1_000
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let error = errno
            guard error == EWOULDBLOCK || error == EINTR else {
                close(fd)
                throw .io("lock", path: path, errno: error)
            }
            guard clock.now < deadline else {
                close(fd)
                throw SafeFilesError(
                    .lockTimeout, path: path,
                    "Another fingerlock process has held \(path) for over \(timeout); try again when it has finished.")
            }
            usleep(pause)
            pause = min(pause * 2, 50_000)
        }
        self.fd = fd
    }

    deinit { close(fd) }
}
