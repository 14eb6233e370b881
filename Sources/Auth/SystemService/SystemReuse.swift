public import Crypto

/// What `unlockWithoutScan` found.
public enum SystemReuse: Sendable {
    /// Released within the reuse window.
    case released(SymmetricKey)
    /// A touch is needed: with the vault's tries and scan timeout, when its owner told them.
    case scanNeeded(tries: Int?, scanTimeout: Duration?)
}
