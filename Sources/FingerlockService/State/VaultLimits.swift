/// How many vaults the service keeps a secret (and counters, a policy, templates) for: per account
/// (`UIDAccount`: a user with all their subordinate uids) and in all. The bound in all is what
/// keeps the state's file system from filling: with at most 10 templates of 40 KiB each, a vault
/// takes about 600 KiB at worst, so 1024 vaults some 600 MiB.
public struct VaultLimits: Sendable, Equatable {
    /// Vaults of one account.
    public var perUser: Int
    /// Vaults of all users.
    public var total: Int
    /// The last vaults of `total`, kept for accounts that have none: when other accounts fill the
    /// service, a user without a vault can still register one.
    public var reserved: Int

    public init(perUser: Int = 64, total: Int = 1024, reserved: Int = 64) {
        self.perUser = perUser
        self.total = total
        self.reserved = reserved
    }

    /// nil when an account with `held` vaults may register one more while the service has `all`;
    /// else the limit that refuses it.
    public func refusal(held: Int, all: Int) -> Int? {
        if all >= total { return total }
        if held >= perUser { return perUser }
        if held > 0 && all >= total - reserved { return total - reserved }
        return nil
    }
}
