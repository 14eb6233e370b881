#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Durable, atomic, private file writes.
///
/// Foundation's atomic write on Linux neither fsyncs the directory nor keeps 0600, so: a 0600 temp
/// file created with `O_EXCL` next to the target, write, fsync, rename over the target, fsync the
/// directory. A crash leaves either the old or the new content, never a mix, and never a file
/// others can read.
public enum AtomicFile {
    /// Replaces `path` with `bytes`. With `durable` false, the file and directory fsyncs are skipped:
    /// the replacement is still atomic and private, and it survives the process being killed (the
    /// kernel has it), but a power loss or OS crash may bring back the previous content.
    public static func write(_ bytes: [UInt8], to path: String, durable: Bool = true) throws(SafeFilesError) {
        let directory = parentDirectory(of: path)
        var (fd, temp) = try createTemporary(beside: path)
        var succeeded = false
        defer {
            if !succeeded {
                close(fd)
                unlink(temp)
            }
        }
        _ = fchmod(fd, 0o600)
        if let error = FileDescriptorIO.writeAll(fd, bytes) { throw .io("write", path: path, errno: error) }
        if durable {
            guard fsync(fd) == 0 else { throw .io("write", path: path, errno: errno) }
        }
        guard close(fd) == 0 else {
            fd = -1
            throw .io("write", path: path, errno: errno)
        }
        guard rename(temp, path) == 0 else {
            let error = errno
            unlink(temp)
            succeeded = true
            throw .io("replace", path: path, errno: error)
        }
        succeeded = true
        if durable { try syncDirectory(directory) }
    }

    /// A new, empty 0600 file beside `path` with a random name no other process or thread can share,
    /// open for writing; the caller closes and renames, links or unlinks it.
    public static func createTemporary(beside path: String) throws(SafeFilesError) -> (descriptor: Int32, path: String) {
        var temp = ""
        var fd: Int32 = -1
        for _ in 0..<16 {
            temp = "\(path).tmp-\(UInt64.random(in: 0...UInt64.max))"
            fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
            if fd >= 0 || errno != EEXIST { break }
        }
        guard fd >= 0 else { throw .io("create", path: temp, errno: errno) }
        return (fd, temp)
    }

    /// Reads a whole regular file. A FIFO, device or socket is refused (`.notARegularFile`): it could
    /// block forever or never end. A symbolic link is refused too unless `followingSymlinks` (for a
    /// file the user names, such as a backup to restore).
    public static func read(_ path: String, followingSymlinks: Bool = false) throws(SafeFilesError) -> [UInt8] {
        // Non-blocking only so that opening a FIFO returns at once; regular files ignore it.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (followingSymlinks ? 0 : O_NOFOLLOW))
        guard fd >= 0 else { throw .io("read", path: path, errno: errno) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .io("read", path: path, errno: errno) }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw SafeFilesError(.notARegularFile, path: path, "\(path) is not a regular file; fingerlock will not read it.")
        }
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .io("read", path: path, errno: errno)
            }
            if count == 0 { break }
            result.append(contentsOf: chunk[0..<count])
        }
        return result
    }

    /// Removes a file and makes the removal durable. Returns whether it existed.
    @discardableResult
    public static func remove(_ path: String) throws(SafeFilesError) -> Bool {
        if unlink(path) != 0 {
            if errno == ENOENT { return false }
            throw .io("remove", path: path, errno: errno)
        }
        try syncDirectory(parentDirectory(of: path))
        return true
    }

    public static func syncDirectory(_ path: String) throws(SafeFilesError) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw .io("open directory", path: path, errno: errno) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw .io("sync directory", path: path, errno: errno) }
    }

    /// The directory holding `path` ("." for a bare name, "/" for a top-level entry).
    public static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
