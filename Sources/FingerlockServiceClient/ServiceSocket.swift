#if canImport(Glibc)
    public import Glibc
#endif

/// fingerlockd's socket file as the CLI judges it before connecting. Who may answer is the file's
/// owner, which SO_PEERCRED must then confirm: with systemd's socket activation the listening socket
/// (and so the peer credentials) is root's; run by hand, the service creates the socket as its own
/// system user. The owner must be root or a system user (uid below 1000) and not the caller — a
/// process of the caller's own cannot pose as the service by pointing `--socket` at a socket of its
/// own — except when the caller is root (tests run the CLI as root against a service user's socket;
/// root can read everything anyway). `SystemServiceClient` and `doctor` apply the same rule.
public struct ServiceSocket: Sendable {
    /// The first uid of a login user (Debian's FIRST_UID).
    public static let firstLoginUID: UInt32 = 1000

    public enum Problem: Error, Equatable, Sendable {
        case missing
        case unreadable(String)
        case notASocket
        case badOwner(UInt32)

        /// Why, in a few words (after "fingerlockd is not reachable at PATH").
        public var reason: String {
            switch self {
            case .missing: "no socket there"
            case .unreadable(let why): why
            case .notASocket: "not a socket"
            case .badOwner(let owner): "the socket belongs to uid \(owner), not to root or a system user"
            }
        }
    }

    public let path: String

    public init(path: String) { self.path = path }

    /// The uid the service must have: the socket file's owner, when the rule above accepts it.
    public func expectedServiceUID(caller: UInt32 = getuid()) -> Result<UInt32, Problem> {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            return .failure(errno == ENOENT ? .missing : .unreadable(String(cString: strerror(errno))))
        }
        guard (info.st_mode & S_IFMT) == S_IFSOCK else { return .failure(.notASocket) }
        let owner = info.st_uid
        guard caller == 0 || (owner != caller && owner < Self.firstLoginUID) else { return .failure(.badOwner(owner)) }
        return .success(owner)
    }
}
