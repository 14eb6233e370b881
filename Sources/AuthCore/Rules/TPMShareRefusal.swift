/// fingerlockd did not ask the TPM to judge a passcode: the caller's share of the TPM's failures is
/// spent, or the failures all callers may spend together are. Nothing was counted. Thrown by the
/// host of `TPMFailureShares`.
public struct TPMShareRefusal: Error, Equatable, Sendable {
    public enum Reason: Equatable, Sendable {
        /// The caller's own wrong passcodes that the TPM still counts fill its share.
        case shareSpent
        /// The caller has room, but the TPM counts as many failures as fingerlockd may let its
        /// callers spend together (the rest is kept for the machine's other users of the TPM).
        case poolSpent
    }

    public var reason: Reason
    /// The caller's charges still standing.
    public var standing: Int
    /// What one account may have standing.
    public var share: Int
    /// What the TPM counts now, and its limit.
    public var failedTries: Int
    public var maximumTries: Int
    /// Seconds until the TPM, forgetting one failure per interval, has forgotten enough for the caller
    /// to be asked again (at most: its first one may come sooner). Nil: it never forgets by itself.
    public var secondsLeft: Int?

    public init(
        reason: Reason, standing: Int, share: Int, failedTries: Int, maximumTries: Int, secondsLeft: Int?
    ) {
        self.reason = reason
        self.standing = standing
        self.share = share
        self.failedTries = failedTries
        self.maximumTries = maximumTries
        self.secondsLeft = secondsLeft
    }
}
