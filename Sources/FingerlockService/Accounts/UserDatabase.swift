#if canImport(Glibc)
    import Glibc
#endif

/// The two questions the accounts ask the system's user database (NSS: /etc/passwd, LDAP, ...).
/// Injected so tests need no real users.
public struct UserDatabase: Sendable {
    /// The uid of the user with this name, nil when there is none.
    public var uidOfName: @Sendable (String) -> UInt32?
    /// Whether some user has this uid.
    public var hasUser: @Sendable (UInt32) -> Bool

    public init(uidOfName: @escaping @Sendable (String) -> UInt32?, hasUser: @escaping @Sendable (UInt32) -> Bool) {
        self.uidOfName = uidOfName
        self.hasUser = hasUser
    }

    /// The system's, through the reentrant calls (connections are served on many threads).
    public static let system = UserDatabase(
        uidOfName: { name in lookUp(\.pw_uid) { getpwnam_r(name, &$0, $1, $2, &$3) } },
        hasUser: { uid in lookUp(\.pw_uid) { getpwuid_r(uid, &$0, $1, $2, &$3) } != nil })

    /// The system's name for `uid`, for a message (nil when it has none).
    public static func systemName(of uid: UInt32) -> String? {
        lookUp({ $0.pw_name.map { String(cString: $0) } }) { getpwuid_r(uid, &$0, $1, $2, &$3) } ?? nil
    }

    /// Runs one getpw*_r call with a buffer grown while it says ERANGE; `field` of the entry (read
    /// while its buffer lives), or nil.
    private static func lookUp<Field>(
        _ field: (passwd) -> Field,
        _ call: (inout passwd, UnsafeMutablePointer<CChar>, Int, inout UnsafeMutablePointer<passwd>?) -> Int32
    ) -> Field? {
        var size = 16 * 1024
        while size <= 1 << 20 {
            var entry = passwd()
            var result: UnsafeMutablePointer<passwd>?
            let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: size)
            defer { buffer.deallocate() }
            let status = call(&entry, buffer, size, &result)
            if status == ERANGE {
                size *= 2
                continue
            }
            return status == 0 && result != nil ? field(entry) : nil
        }
        return nil
    }
}
