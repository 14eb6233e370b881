/// Whom a uid's connections and vaults count against in the service's limits. Records stay keyed by
/// the uid itself (`VaultOwner`); only the limits add up the uids of one account.
///
/// A login user can act as many uids: Debian's `useradd` gives each one 65,536 subordinate uids
/// (`/etc/subuid`), which `newuidmap` lets them use from an unprivileged user namespace. Limits per
/// uid would let one user take every connection and register vaults without end; limits per account
/// hold all of a user's uids to one share.
public enum UIDAccount: Hashable, Sendable, CustomStringConvertible {
    /// A user's own uid, or a subordinate uid of that user's.
    case user(UInt32)
    /// The uids nobody answers for: above the login range and in no user's subordinate range, or in
    /// the range of an owner the system does not know. Only root hands such uids out (a container
    /// manager's private ranges, systemd's dynamic users); they share one account, so no such range,
    /// however large, takes more than one user's share.
    case unclaimed

    public var description: String {
        switch self {
        case .user(let uid): "uid \(uid)"
        case .unclaimed: "unclaimed uids"
        }
    }
}

/// Tells which account a uid is charged to. Injected: `fingerlockd` reads the system's files
/// (`SubordinateUIDAccounts`); tests give their own.
public protocol UIDAccounts: Sendable {
    func account(of uid: UInt32) -> UIDAccount
}

/// Every uid its own account: for tests and tools that have no subordinate uids to consider.
public struct SeparateUIDAccounts: UIDAccounts {
    public init() {}
    public func account(of uid: UInt32) -> UIDAccount { .user(uid) }
}
