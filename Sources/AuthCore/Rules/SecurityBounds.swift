/// The security settings' defaults and bounds: what `config set` accepts, what a vault starts with,
/// and what fingerlockd takes from SetVaultPolicy. Defined here once; user mode's sealed
/// `SecuritySettings` and the service's policy both check against it.
public enum SecuritySetting: String, CaseIterable, Sendable {
    case cacheExpiry = "cache-expiry"
    case reuseWindow = "reuse-window"
    case maxTries = "max-tries"
    case scanTimeout = "scan-timeout"
    case clipClear = "clip-clear"

    /// Whether the value is a duration (in seconds); else a count.
    public var isDuration: Bool { self != .maxTries }

    /// Allowed values, in seconds (or tries).
    public var range: ClosedRange<Int64> {
        switch self {
        case .cacheExpiry: 60...(48 * 3600)
        case .reuseWindow: 0...300
        case .maxTries: 1...10
        case .scanTimeout: 5...120
        // A few seconds is enough to paste once; more than 10 min is a secret left lying about.
        case .clipClear: 2...600
        }
    }

    /// The value a new vault has, in seconds (or tries): a passcode unlock lets a finger unlock for
    /// 8 h, no reuse, 3 touches per unlock, 30 s per scan, 45 s on the clipboard (as `pass -c`).
    public var defaultValue: Int64 {
        switch self {
        case .cacheExpiry: 8 * 3600
        case .reuseWindow: 0
        case .maxTries: 3
        case .scanTimeout: 30
        case .clipClear: 45
        }
    }

    public func contains(_ value: Int64) -> Bool { range.contains(value) }
}
