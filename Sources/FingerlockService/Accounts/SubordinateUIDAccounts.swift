import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The accounts as the system defines them, checked in this order:
///
/// 1. A uid in a range of `/etc/subuid` belongs to the range's owner (the first such line: that is
///    the one `newuidmap` would grant). An owner the user database does not know, named neither by
///    a user name nor by digits, makes it `.unclaimed`.
/// 2. A uid up to UID_MAX (root, system users, login users) is its own account: no unprivileged
///    user can act as it without a line of step 1.
/// 3. Above UID_MAX, a uid the user database knows (a directory user, `nobody`) is its own account.
/// 4. Any other uid is `.unclaimed`: only root hands such uids out, and they share one account.
///
/// The file is read again whenever it changes (`useradd` adds a range while the service runs); an
/// owner's uid is looked up once per version of the file.
public final class SubordinateUIDAccounts: UIDAccounts {
    private let path: String
    private let highestLoginUID: UInt32
    private let users: UserDatabase
    private let warning: @Sendable (String) -> Void
    private let snapshot = Mutex<Snapshot?>(nil)

    /// One version of the file: its ranges, and the owners' uids looked up so far (nil: unknown).
    private struct Snapshot {
        var version: FileVersion?
        var ranges: [SubordinateRange]
        var owners: [String: UInt32?] = [:]
        var failure: Int32?
    }

    /// What tells one content of the file from the next without reading it.
    private struct FileVersion: Equatable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modified: timespec
        var changed: timespec

        init(_ info: stat) {
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
            size = Int64(info.st_size)
            modified = info.st_mtim
            changed = info.st_ctim
        }

        static func == (a: FileVersion, b: FileVersion) -> Bool {
            a.device == b.device && a.inode == b.inode && a.size == b.size
                && a.modified.tv_sec == b.modified.tv_sec && a.modified.tv_nsec == b.modified.tv_nsec
                && a.changed.tv_sec == b.changed.tv_sec && a.changed.tv_nsec == b.changed.tv_nsec
        }
    }

    /// - Parameters:
    ///   - path: the subordinate uid file (`/etc/subuid`); a missing one grants no ranges.
    ///   - warning: told once per failure when the file exists but cannot be read: its ranges then
    ///     count as unclaimed (above UID_MAX) until it can.
    public init(
        path: String, highestLoginUID: UInt32, users: UserDatabase = .system,
        warning: @escaping @Sendable (String) -> Void
    ) {
        self.path = path
        self.highestLoginUID = highestLoginUID
        self.users = users
        self.warning = warning
    }

    public func account(of uid: UInt32) -> UIDAccount {
        if let owner = withCurrentSnapshot({ snapshot in subordinateOwner(of: uid, in: &snapshot) }) {
            return owner.map(UIDAccount.user) ?? .unclaimed
        }
        if uid <= highestLoginUID || users.hasUser(uid) { return .user(uid) }
        return .unclaimed
    }

    /// nil: in no range; .some(nil): in a range of an unknown owner.
    private func subordinateOwner(of uid: UInt32, in snapshot: inout Snapshot) -> UInt32?? {
        guard let range = snapshot.ranges.first(where: { $0.contains(uid) }) else { return nil }
        if let known = snapshot.owners[range.owner] { return .some(known) }
        let owner = users.uidOfName(range.owner) ?? UInt32(range.owner)
        // updateValue: a subscript assignment of nil would drop the entry instead of keeping "unknown".
        snapshot.owners.updateValue(owner, forKey: range.owner)
        return .some(owner)
    }

    /// Runs `body` on the file's current ranges, reading them first when the file changed.
    private func withCurrentSnapshot<T>(_ body: (inout Snapshot) -> T) -> T {
        var info = stat()
        let found = stat(path, &info) == 0
        let statError = found ? 0 : errno
        let version = found ? FileVersion(info) : nil
        var failure: Int32?
        let result = snapshot.withLock { cached -> T in
            var current: Snapshot
            if let kept = cached, kept.version == version, kept.failure == nil {
                current = kept
            } else {
                let (ranges, error) = found ? Self.readRanges(path) : ([], statError == ENOENT ? nil : statError)
                if let error, cached?.failure != error { failure = error }
                current = Snapshot(version: version, ranges: ranges, failure: error)
            }
            defer { cached = current }
            return body(&current)
        }
        if let failure {
            warning(
                "cannot read \(path) (errno \(failure)); its subordinate uids count as unclaimed until it can be read")
        }
        return result
    }

    /// The ranges of the file, or the errno that kept it from being read.
    private static func readRanges(_ path: String) -> ([SubordinateRange], Int32?) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return ([], errno) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { return ([], errno) }
            if count == 0 { break }
            bytes += chunk[..<count]
        }
        return (SubordinateRange.parse(String(decoding: bytes, as: UTF8.self)), nil)
    }
}
