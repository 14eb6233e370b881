public import AuthCore
public import FingerlockProtocol
import Fingerprint
import FoundationEssentials

/// A vault's own settings as its owner told the service (SetVaultPolicy), kept beside its secret:
/// the service cannot read them in the vault. Every value is within the bounds `SecuritySettings`
/// allows; a stored file that is not is damage, not a looser policy.
public struct ServiceVaultPolicy: Codable, Equatable, Sendable {
    public var cacheExpirySeconds: Int
    public var reuseWindowSeconds: Int
    public var maxTries: Int
    public var scanTimeoutSeconds: Int
    /// Nil before the owner said (no kind check then).
    public var kind: ReaderKind?

    /// What applies before the owner told the service anything: the defaults a new vault has.
    public static let defaults = ServiceVaultPolicy(
        cacheExpirySeconds: Int(SecuritySetting.cacheExpiry.defaultValue),
        reuseWindowSeconds: Int(SecuritySetting.reuseWindow.defaultValue),
        maxTries: Int(SecuritySetting.maxTries.defaultValue),
        scanTimeoutSeconds: Int(SecuritySetting.scanTimeout.defaultValue), kind: nil)

    init(cacheExpirySeconds: Int, reuseWindowSeconds: Int, maxTries: Int, scanTimeoutSeconds: Int, kind: ReaderKind?) {
        self.cacheExpirySeconds = cacheExpirySeconds
        self.reuseWindowSeconds = reuseWindowSeconds
        self.maxTries = maxTries
        self.scanTimeoutSeconds = scanTimeoutSeconds
        self.kind = kind
    }

    /// The policy a client sent, each value checked exactly as `config set` checks it.
    public init(_ wire: VarlinkParameters.VaultPolicy) throws(VarlinkError) {
        func checked(_ value: Int, _ key: SecuritySetting, _ name: String) throws(VarlinkError) -> Int {
            guard key.contains(Int64(value)) else { throw .invalidParameter("policy." + name) }
            return value
        }
        guard let kind = ReaderKind(rawValue: wire.kind) else { throw .invalidParameter("policy.kind") }
        self.init(
            cacheExpirySeconds: try checked(wire.cacheExpirySeconds, .cacheExpiry, "cacheExpirySeconds"),
            reuseWindowSeconds: try checked(wire.reuseWindowSeconds, .reuseWindow, "reuseWindowSeconds"),
            maxTries: try checked(wire.maxTries, .maxTries, "maxTries"),
            scanTimeoutSeconds: try checked(wire.scanTimeoutSeconds, .scanTimeout, "scanTimeoutSeconds"), kind: kind)
    }

    /// Whether a stored policy is one SetVaultPolicy could have accepted.
    var isWithinBounds: Bool {
        kind != nil && (try? ServiceVaultPolicy(wire)) == self
    }

    public var wire: VarlinkParameters.VaultPolicy {
        .init(
            cacheExpirySeconds: cacheExpirySeconds, reuseWindowSeconds: reuseWindowSeconds, maxTries: maxTries,
            scanTimeoutSeconds: scanTimeoutSeconds, kind: kind?.rawValue ?? "")
    }
}
