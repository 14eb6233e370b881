#if canImport(Glibc)
    import Glibc
#endif

/// Who is on the other end of a Unix socket, as the kernel says (SO_PEERCRED, taken when the peer
/// connected). Every record the service keeps is keyed by this uid; nothing a client sends can
/// name another user.
public struct PeerCredentials: Sendable, Hashable {
    public var pid: Int32
    public var uid: UInt32
    public var gid: UInt32

    public init(pid: Int32, uid: UInt32, gid: UInt32) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
    }

    /// The credentials of the peer of a connected Unix stream socket; nil when the kernel gives none.
    public static func of(socket fd: Int32) -> PeerCredentials? {
        // struct ucred (pid_t pid; uid_t uid; gid_t gid), three 32-bit fields; Glibc's Swift module
        // hides it behind _GNU_SOURCE, so it is read from its bytes.
        var raw = (UInt32(0), UInt32(0), UInt32(0))
        var length = socklen_t(MemoryLayout.size(ofValue: raw))
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &raw, &length) == 0, length == 12 else { return nil }
        return PeerCredentials(pid: Int32(bitPattern: raw.0), uid: raw.1, gid: raw.2)
    }
}
