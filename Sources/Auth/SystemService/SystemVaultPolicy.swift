public import Vault

/// A vault's settings as fingerlockd applies them: the sealed `SecuritySettings` that concern a
/// touch or the cached key, and the vault's kind.
public struct SystemVaultPolicy: Sendable, Equatable {
    public var cacheExpiry: Duration
    public var reuseWindow: Duration
    public var maxTries: Int
    public var scanTimeout: Duration
    public var kind: VaultKind

    public init(cacheExpiry: Duration, reuseWindow: Duration, maxTries: Int, scanTimeout: Duration, kind: VaultKind) {
        self.cacheExpiry = cacheExpiry
        self.reuseWindow = reuseWindow
        self.maxTries = maxTries
        self.scanTimeout = scanTimeout
        self.kind = kind
    }

    public init(_ settings: SecuritySettings, kind: VaultKind) {
        self.init(
            cacheExpiry: settings.cacheExpiry, reuseWindow: settings.reuseWindow, maxTries: settings.maxTries,
            scanTimeout: settings.scanTimeout, kind: kind)
    }
}
