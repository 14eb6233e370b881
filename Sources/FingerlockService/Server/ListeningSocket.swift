import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// The service's listening Unix stream socket: one handed over by systemd (socket activation), or
/// one bound at a path, mode 0666 — every login user must be able to connect, and who they are is
/// taken from the kernel (SO_PEERCRED), never from what they send.
public struct ListeningSocket: Sendable {
    public let descriptor: Int32
    /// The path this process bound and removes at the end; nil for an inherited socket.
    public let boundPath: String?

    public struct Failure: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// The socket systemd passed (fd 3), when `LISTEN_PID` names this process and `LISTEN_FDS` ≥ 1.
    public static func activated(environment: [String: String]) -> ListeningSocket? {
        guard let pid = environment["LISTEN_PID"].flatMap({ Int32($0) }), pid == getpid(),
            let count = environment["LISTEN_FDS"].flatMap({ Int($0) }), count >= 1
        else { return nil }
        // Not passed on to anything the service might start.
        unsetenv("LISTEN_PID")
        unsetenv("LISTEN_FDS")
        unsetenv("LISTEN_FDNAMES")
        _ = fcntl(3, F_SETFD, FD_CLOEXEC)
        return ListeningSocket(descriptor: 3, boundPath: nil)
    }

    /// Binds and listens at `path`. A stale socket left by a dead service is replaced; a live one
    /// (something accepts on it) or anything that is not a socket is refused.
    public static func bind(path: String, backlog: Int32 = 128) throws -> ListeningSocket {
        var address = try Self.address(path)
        var info = stat()
        if lstat(path, &info) == 0 {
            guard (info.st_mode & S_IFMT) == S_IFSOCK else {
                throw Failure(description: "\(path) exists and is not a socket; refusing to replace it.")
            }
            if Self.isLive(&address) {
                throw Failure(description: "another service is already listening on \(path).")
            }
            unlink(path)
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "cannot create a socket: \(String(cString: strerror(errno))).") }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else {
            let error = errno
            close(fd)
            throw Failure(description: Self.bindProblem(path: path, errno: error))
        }
        guard chmod(path, 0o666) == 0, listen(fd, backlog) == 0 else {
            let error = errno
            close(fd)
            unlink(path)
            throw Failure(description: "cannot listen on \(path): \(String(cString: strerror(error))).")
        }
        return ListeningSocket(descriptor: fd, boundPath: path)
    }

    /// Why `bind` failed, in words, with the fix where there is one: a missing folder is the usual
    /// case when fingerlockd is started by hand (systemd creates /run/fingerlock for the unit).
    static func bindProblem(path: String, errno error: Int32) -> String {
        let folder = path.lastIndex(of: "/").map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        switch error {
        case ENOENT:
            return "cannot bind \(path): the folder \(folder) does not exist; create it first "
                + "(`sudo install -d -m 0755 \(folder)`) or let systemd start fingerlockd (its socket unit creates it)."
        case EACCES:
            let name = effectiveUserName()
            return "cannot bind \(path): fingerlockd runs as \(name) (uid \(geteuid())), which may not create files in \(folder); "
                + "make the folder that user's (`sudo install -d -m 0755 -o \(name) \(folder)`)."
        default:
            return "cannot bind \(path): \(String(cString: strerror(error)))."
        }
    }

    /// The name of the user this process runs as, for a message (its uid when it has none).
    static func effectiveUserName() -> String {
        UserDatabase.systemName(of: geteuid()) ?? String(geteuid())
    }

    static func address(_ path: String) throws -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count < MemoryLayout.size(ofValue: address.sun_path), !bytes.contains(0) else {
            throw Failure(description: "\(path) cannot be a socket path (at most 107 bytes).")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        return address
    }

    private static func isLive(_ address: inout sockaddr_un) -> Bool {
        let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard probe >= 0 else { return false }
        defer { close(probe) }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(probe, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
            }
        }
    }

    /// Stops listening and removes the path this process bound.
    func stopListening() {
        Glibc.close(descriptor)
        if let boundPath { unlink(boundPath) }
    }
}
