#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file that did not exist before: created 0600 with `O_EXCL | O_NOFOLLOW`, so an existing file, or
/// a symbolic link planted where it goes, is refused rather than written through or overwritten.
public enum NewPrivateFile {
    /// Creates `path` and writes `bytes` to it, synced. On failure a file this call created is removed.
    public static func write(_ bytes: [UInt8], to path: String) throws(SafeFilesError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw refusal(path: path, errno: errno) }
        var written = false
        defer {
            if !written {
                close(fd)
                unlink(path)
            }
        }
        // The umask may have taken bits off, never added any; fchmod states the intent anyway.
        _ = fchmod(fd, 0o600)
        if let error = FileDescriptorIO.writeAll(fd, bytes) { throw .io("write", path: path, errno: error) }
        guard fsync(fd) == 0 else { throw .io("write", path: path, errno: errno) }
        written = true
        guard close(fd) == 0 else { throw .io("write", path: path, errno: errno) }
    }

    /// Why `path` cannot be created as a new file, checked before any work (a passcode asked, a vault
    /// changed); nil when nothing is there yet. The create itself checks again.
    public static func problem(at path: String) -> SafeFilesError? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return refusal(path: path, errno: EEXIST)
    }

    static func refusal(path: String, errno: Int32) -> SafeFilesError {
        if errno == EEXIST || errno == ELOOP {
            return SafeFilesError(.exists, path: path, "\(path) already exists; fingerlock writes only a new file there. Nothing was changed.")
        }
        return .io("create", path: path, errno: errno)
    }
}
