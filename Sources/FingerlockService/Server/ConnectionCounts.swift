/// The open connections per account (`UIDAccount`: a user with all their subordinate uids) and in
/// all, and whether one more may open. A value: the server keeps it under its lock.
///
/// Each account holds at most `maximumConnectionsPerUser`, and only accounts that hold none may
/// take the last `reservedConnections` of `maximumConnections`: however many accounts fill their
/// share, a user who holds no connection still finds one, unless as many other accounts each came
/// for one of the reserve at once.
struct ConnectionCounts: Sendable {
    private(set) var total = 0
    private var perAccount: [UIDAccount: Int] = [:]

    /// Counts a new connection of `account`'s; nil when admitted, else the limit that refuses it.
    mutating func admit(_ account: UIDAccount, limits: ServiceLimits) -> Int? {
        let held = perAccount[account, default: 0]
        if total >= limits.maximumConnections { return limits.maximumConnections }
        if held >= limits.maximumConnectionsPerUser { return limits.maximumConnectionsPerUser }
        let shared = limits.maximumConnections - limits.reservedConnections
        if held > 0 && total >= shared { return shared }
        total += 1
        perAccount[account] = held + 1
        return nil
    }

    /// Forgets a connection `admit` counted.
    mutating func release(_ account: UIDAccount) {
        total -= 1
        let held = perAccount[account, default: 1] - 1
        perAccount[account] = held > 0 ? held : nil
    }

    func held(by account: UIDAccount) -> Int { perAccount[account, default: 0] }
}
