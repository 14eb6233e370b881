import SafeFiles

#if canImport(Glibc)
    import Glibc
#endif

/// Passcode attempts still being checked, as locks the kernel keeps: one open-file-description lock
/// (`F_OFD_SETLK`) per attempt on one byte, its slot, of `attempts-in-flight` beside the counters.
///
/// Kernel locks rather than pids written down: a lock goes the instant its holder does — killed,
/// crashed, or its hold dropped — so no reused pid can pass for a live attempt, nothing in /proc or
/// across PID namespaces has to be read, and a reboot leaves nothing behind. Open-file-description
/// locks rather than `flock` (a whole file each, so a file per attempt) or classic `fcntl` locks
/// (dropped when the process closes any descriptor of the file). The file itself holds no data and
/// needs no sync: the record counts every attempt until it is judged, so an attempt whose lock is
/// gone — its process killed, or the machine restarted — is a wrong passcode, as it always was.
struct InFlightPasscodes: Sendable {
    static let name = "attempts-in-flight"
    let path: String

    /// Glibc's values (`<bits/fcntl-linux.h>`, the same on every architecture); Swift's Glibc
    /// module leaves out these `_GNU_SOURCE` names.
    private static let getLock: Int32 = 36
    private static let setLock: Int32 = 37

    /// How many of the first `capacity` slots a live attempt holds, this process's own included
    /// (their locks are on descriptions of their own, which conflict with the probe's).
    func count(capacity: Int) throws -> Int {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else {
            if errno == ENOENT { return 0 }
            throw ioError("open")
        }
        defer { close(fd) }
        try PrivateDirectory.checkFile(descriptor: fd, path: path)
        var held = 0
        for slot in 0..<capacity {
            var probe = Self.range(slot)
            // A file system without these locks holds none (see `hold`).
            guard fcntl(fd, Self.getLock, &probe) == 0 else { return 0 }
            if probe.l_type != Int16(F_UNLCK) { held += 1 }
        }
        return held
    }

    /// Locks the first free slot of `capacity` on a descriptor of its own, which the hold keeps;
    /// nil when every slot is held.
    func hold(capacity: Int) throws -> PasscodeHold? {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw ioError("open") }
        do {
            try PrivateDirectory.checkFile(descriptor: fd, path: path)
        } catch {
            close(fd)
            throw error
        }
        for slot in 0..<capacity {
            var lock = Self.range(slot)
            if fcntl(fd, Self.setLock, &lock) == 0 { return PasscodeHold(descriptor: fd) }
            guard errno == EAGAIN || errno == EACCES else {
                // A file system without these locks (an old kernel, some network or FUSE mounts):
                // the attempt is not shown in flight, so concurrent checks take it for wrong until
                // it is judged, as before there were attempts in flight; it is not refused for that.
                close(fd)
                return PasscodeHold()
            }
        }
        close(fd)
        return nil
    }

    /// A write lock on slot `slot`'s byte (locks may lie past the end of a file: this one stays empty).
    private static func range(_ slot: Int) -> flock {
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = off_t(slot)
        lock.l_len = 1
        return lock
    }

    private func ioError(_ verb: String) -> AttemptStoreError {
        AttemptStoreError("Cannot \(verb) the passcode attempts in flight in \(path) (errno \(errno)).")
    }
}
