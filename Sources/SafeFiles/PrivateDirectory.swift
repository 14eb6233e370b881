#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A directory only its owner may enter (0700), created on demand and checked on every use.
public struct PrivateDirectory: Sendable, Hashable {
    public let path: String

    /// Creates the directory (and missing parents, also 0700) or checks the existing one.
    /// A directory another user owns, or one group/others may access, is refused.
    public init(creating path: String) throws(SafeFilesError) {
        var trimmed = path
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        self.path = trimmed
        try Self.createIfNeeded(trimmed)
        try Self.check(trimmed)
    }

    /// The path of a file or subdirectory inside this one.
    public func appending(_ component: String) -> String {
        path == "/" ? "/" + component : path + "/" + component
    }

    /// A subdirectory, created private if missing.
    public func subdirectory(_ component: String) throws(SafeFilesError) -> PrivateDirectory {
        try PrivateDirectory(creating: appending(component))
    }

    /// Refuses a directory that is not ours or that group/others may access.
    public static func check(_ path: String) throws(SafeFilesError) {
        var info = stat()
        guard lstat(path, &info) == 0 else { throw .io("inspect", path: path, errno: errno) }
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            throw SafeFilesError(.notADirectory, path: path, "\(path) is not a directory.")
        }
        guard info.st_uid == geteuid() else {
            throw SafeFilesError(.notOwned, path: path, "\(path) belongs to another user; fingerlock will not use it.")
        }
        let mode = info.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            throw SafeFilesError(
                .tooOpen, path: path,
                "\(path) is accessible to other users (mode \(String(mode, radix: 8))); run: chmod 700 '\(path)'")
        }
    }

    /// Refuses a file that is not ours or that group/others may read or write.
    public static func checkFile(_ path: String) throws(SafeFilesError) {
        var info = stat()
        guard lstat(path, &info) == 0 else { throw .io("inspect", path: path, errno: errno) }
        try checkFile(info, path: path)
    }

    /// As `checkFile(_:)`, for a file already open (no window between the check and the use); also
    /// refuses anything but a regular file. Returns the file's size.
    @discardableResult
    public static func checkFile(descriptor fd: Int32, path: String) throws(SafeFilesError) -> Int {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .io("inspect", path: path, errno: errno) }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw SafeFilesError(.notARegularFile, path: path, "\(path) is not a regular file; fingerlock will not use it.")
        }
        try checkFile(info, path: path)
        return Int(info.st_size)
    }

    private static func checkFile(_ info: stat, path: String) throws(SafeFilesError) {
        guard info.st_uid == geteuid() else {
            throw SafeFilesError(.notOwned, path: path, "\(path) belongs to another user; fingerlock will not use it.")
        }
        let mode = info.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            throw SafeFilesError(
                .tooOpen, path: path,
                "\(path) is accessible to other users (mode \(String(mode, radix: 8))); run: chmod 600 '\(path)'")
        }
    }

    private static func createIfNeeded(_ path: String) throws(SafeFilesError) {
        var info = stat()
        if lstat(path, &info) == 0 { return }
        guard errno == ENOENT else { throw .io("inspect", path: path, errno: errno) }
        if let slash = path.lastIndex(of: "/"), slash != path.startIndex {
            let parent = String(path[..<slash])
            var parentInfo = stat()
            if lstat(parent, &parentInfo) != 0 {
                try createIfNeeded(parent)
            }
        }
        if mkdir(path, 0o700) != 0 && errno != EEXIST {
            throw .io("create directory", path: path, errno: errno)
        }
        // mkdir honours the umask, which may be stricter but never looser; make it exact.
        _ = chmod(path, 0o700)
    }
}
