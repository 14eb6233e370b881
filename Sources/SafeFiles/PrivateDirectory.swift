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

    /// The real path of a directory to use as `PrivateDirectory`, checked on the way from `/`: every
    /// directory that leads to it must be owned by root or by us and writable by nobody else unless
    /// it is sticky (like `/tmp`) — whoever can write a parent can swap the directory for their own.
    /// Symbolic links on the way are followed only when root or we own them (they live in directories
    /// already checked, and where they lead is checked in turn), but the directory itself must not
    /// be one, however the path names it (`link`, `link/`, `link/.`). The part of the path that does
    /// not exist yet is kept as written; `init(creating:)` makes it private.
    public static func resolve(_ path: String) throws(SafeFilesError) -> String {
        var absolute = path
        if !absolute.hasPrefix("/") {
            guard let cwd = getcwd(nil, 0) else { throw .io("find the current directory for", path: path, errno: errno) }
            absolute = String(cString: cwd) + "/" + absolute
            free(cwd)
        }
        var components = absolute.split(separator: "/").map(String.init)
        while components.last == "." { components.removeLast() }
        guard let last = components.popLast() else { return try walk([], naming: path) }
        if last == ".." { return try walk(components + [last], naming: path) }
        let parent = try walk(components, naming: path)
        let target = parent == "/" ? "/" + last : parent + "/" + last
        var info = stat()
        if lstat(target, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK {
            throw SafeFilesError(
                .notADirectory, path: path,
                "\(path) is a symbolic link; fingerlock will not use it as its data directory: name the real directory instead.")
        }
        return target
    }

    /// Follows `components` from `/`, checking every directory and link met; returns the real path
    /// (what does not exist yet is appended as written).
    private static func walk(_ components: [String], naming original: String) throws(SafeFilesError) -> String {
        var pending = Array(components.reversed())
        var current = "/"
        try checkAncestor(current, naming: original)
        var links = 0
        while let component = pending.popLast() {
            if component.isEmpty || component == "." { continue }
            if component == ".." {
                // `current` holds no links, so its parent is found by text.
                if let slash = current.lastIndex(of: "/") { current = slash == current.startIndex ? "/" : String(current[..<slash]) }
                continue
            }
            let candidate = current == "/" ? "/" + component : current + "/" + component
            var info = stat()
            guard lstat(candidate, &info) == 0 else {
                guard errno == ENOENT else { throw .io("inspect", path: candidate, errno: errno) }
                // Created later, by us, with 0700: nothing below can be anyone else's.
                current = candidate
                continue
            }
            switch info.st_mode & S_IFMT {
            case S_IFLNK:
                links += 1
                guard links <= 40 else { throw .io("follow the links in", path: original, errno: ELOOP) }
                guard info.st_uid == 0 || info.st_uid == geteuid() else {
                    throw SafeFilesError(
                        .notOwned, path: candidate,
                        "\(candidate) is a symbolic link owned by another user (uid \(info.st_uid)); fingerlock will not follow it to its data.")
                }
                var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
                let count = readlink(candidate, &buffer, buffer.count - 1)
                guard count > 0 else { throw .io("read the link", path: candidate, errno: errno) }
                let target = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
                if target.hasPrefix("/") {
                    current = "/"
                }
                pending.append(contentsOf: target.split(separator: "/").map(String.init).reversed())
            case S_IFDIR:
                try checkAncestor(candidate, info: info, naming: original)
                current = candidate
            default:
                throw SafeFilesError(.notADirectory, path: candidate, "\(candidate) is not a directory.")
            }
        }
        return current
    }

    private static func checkAncestor(_ path: String, naming original: String) throws(SafeFilesError) {
        var info = stat()
        guard lstat(path, &info) == 0 else { throw .io("inspect", path: path, errno: errno) }
        try checkAncestor(path, info: info, naming: original)
    }

    private static func checkAncestor(_ path: String, info: stat, naming original: String) throws(SafeFilesError) {
        guard info.st_uid == 0 || info.st_uid == geteuid() else {
            throw SafeFilesError(
                .notOwned, path: path,
                "\(path) belongs to another user (uid \(info.st_uid)), who could replace \(original); use a data directory only you and root control."
            )
        }
        let mode = info.st_mode & 0o7777
        guard mode & 0o022 == 0 || mode & S_ISVTX != 0 else {
            throw SafeFilesError(
                .tooOpen, path: path,
                "\(path) is writable by other users (mode \(String(mode, radix: 8))), who could replace \(original); run: chmod go-w '\(path)'")
        }
    }

    /// Refuses a file that is not ours or that group/others may read or write.
    public static func checkFile(_ path: String) throws(SafeFilesError) {
        var info = stat()
        guard lstat(path, &info) == 0 else { throw .io("inspect", path: path, errno: errno) }
        try checkFile(info, path: path)
    }

    /// As `checkFile(_:)` for a file that comes and goes (SQLite's `-wal`, `-shm`, `-journal`): one
    /// that is not there, or was removed while this looked, passes. One `lstat`, so a file removed by
    /// another process between "is it there?" and "whose is it?" is no error.
    public static func checkFileIfPresent(_ path: String) throws(SafeFilesError) {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return }
            throw .io("inspect", path: path, errno: errno)
        }
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
