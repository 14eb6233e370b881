import Foundation
import SafeFiles

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a vault lives inside the data directory, and the checks made before touching it.
struct VaultFiles: Sendable {
    let directory: String

    init(directory: String) {
        var trimmed = directory
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        self.directory = trimmed
    }

    var database: String { directory + "/vault.sqlite" }
    /// Writers flock this file; it is never renamed or replaced, so every process locks one inode.
    var lock: String { directory + "/vault.lock" }
    /// Every file SQLite or we may leave next to the database.
    var all: [String] { [database, database + "-wal", database + "-shm", database + "-journal", lock] }

    var databaseExists: Bool { access(database, F_OK) == 0 }

    /// The directory must be 0700 and ours; every vault file that exists must be 0600-or-stricter
    /// and ours. Too-open permissions are refused with the chmod that fixes them.
    func checkPermissions() throws(VaultError) {
        var info = stat()
        guard lstat(directory, &info) == 0 else {
            if errno == ENOENT { throw VaultError(.notFound, "No vault in \(directory): set a passcode first.") }
            throw VaultError(.io, "Cannot inspect \(directory): \(String(cString: strerror(errno))).")
        }
        do {
            try PrivateDirectory.check(directory)
            // SQLite removes `-wal` and `-shm` when another process's last connection closes.
            for file in all { try PrivateDirectory.checkFileIfPresent(file) }
        } catch {
            throw VaultError.from(error)
        }
    }

    func acquireLock(timeout: Duration) throws(VaultError) -> FileLock {
        do {
            return try FileLock(path: lock, timeout: timeout)
        } catch {
            throw VaultError.from(error)
        }
    }

    /// Creates an empty 0600 file before SQLite opens it: SQLite itself would create it with the
    /// umask's mode (typically 0644), and its journal files copy the database file's mode.
    static func createPrivateFile(_ path: String) throws(VaultError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else {
            throw VaultError.fromErrno(errno, "create \(path)")
        }
        _ = fchmod(fd, 0o600)
        close(fd)
    }

    /// A fresh unused name next to `path`.
    static func temporaryName(near path: String, _ label: String) -> String {
        "\(path).\(label)-\(UInt64.random(in: 0...UInt64.max))"
    }

    static func removeDatabaseFiles(_ path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
    }
}

extension VaultFiles {
    static func syncFile(_ path: String) throws(VaultError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw VaultError.fromErrno(errno, "open \(path)") }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw VaultError.fromErrno(errno, "sync \(path)") }
    }
}

extension VaultError {
    static func fromErrno(_ code: Int32, _ operation: String) -> VaultError {
        if code == ENOSPC || code == EDQUOT { return .diskFull("cannot \(operation)") }
        return VaultError(.io, "Cannot \(operation): \(String(cString: strerror(code))).")
    }
}
