/// The security settings' defaults and bounds: what `config set` accepts, what a vault starts with,
/// and what fingerlockd takes from SetVaultPolicy. Defined here once; user mode's sealed
/// `SecuritySettings` and the service's policy both check against it.
public enum SecuritySetting: String, CaseIterable, Sendable {
    case cacheExpiry = "cache-expiry"
    case reuseWindow = "reuse-window"
    case maxTries = "max-tries"
    case scanTimeout = "scan-timeout"
    case clipClear = "clip-clear"
    /// Earlier revisions kept per note (issue 28).
    case historyLimit = "history-limit"
    /// How long `notes rm` keeps a note in the trash before a write purges it.
    case trashKeep = "trash-keep"

    /// Whether the value is a duration (in seconds); else a count.
    public var isDuration: Bool { self != .maxTries && self != .historyLimit }

    /// Allowed values, in seconds (or tries).
    public var range: ClosedRange<Int64> {
        switch self {
        case .cacheExpiry: 60...(48 * 3600)
        case .reuseWindow: 0...300
        case .maxTries: 1...10
        case .scanTimeout: 5...120
        // A few seconds is enough to paste once; more than 10 min is a secret left lying about.
        case .clipClear: 2...600
        case .historyLimit: 0...100
        // At least an hour, so a note removed by mistake can be fetched back; at most a year.
        case .trashKeep: 3600...(365 * 86_400)
        }
    }

    /// The value a new vault has, in seconds (or tries): a passcode unlock lets a finger unlock for
    /// 8 h, no reuse, 3 touches per unlock, 30 s per scan, 45 s on the clipboard (as `pass -c`),
    /// 10 revisions per note, 30 days in the trash.
    public var defaultValue: Int64 {
        switch self {
        case .cacheExpiry: 8 * 3600
        case .reuseWindow: 0
        case .maxTries: 3
        case .scanTimeout: 30
        case .clipClear: 45
        case .historyLimit: 10
        case .trashKeep: 30 * 86_400
        }
    }

    public func contains(_ value: Int64) -> Bool { range.contains(value) }
}
