/// The parameters of SetVaultPolicy: the vault's own settings, which are sealed in the vault where
/// the service cannot read them.
extension VarlinkParameters {
    public struct VaultPolicy: Codable, Sendable, Equatable {
        public var cacheExpirySeconds: Int
        public var reuseWindowSeconds: Int
        public var maxTries: Int
        public var scanTimeoutSeconds: Int
        /// "test" or "hardware".
        public var kind: String
        public init(cacheExpirySeconds: Int, reuseWindowSeconds: Int, maxTries: Int, scanTimeoutSeconds: Int, kind: String) {
            self.cacheExpirySeconds = cacheExpirySeconds
            self.reuseWindowSeconds = reuseWindowSeconds
            self.maxTries = maxTries
            self.scanTimeoutSeconds = scanTimeoutSeconds
            self.kind = kind
        }
    }

    public struct SetVaultPolicy: Codable, Sendable, Equatable {
        public var vault: String
        /// The vault's key (base64): the proof that the caller opened the vault.
        public var key: String
        public var policy: VaultPolicy
        /// Counts kept elsewhere (user mode) that the service's counters must not fall below.
        public var failedTouches: Int?
        public var failedPasscodes: Int?
        public init(vault: String, key: String, policy: VaultPolicy, failedTouches: Int? = nil, failedPasscodes: Int? = nil) {
            self.vault = vault
            self.key = key
            self.policy = policy
            self.failedTouches = failedTouches
            self.failedPasscodes = failedPasscodes
        }
    }

    public struct SetVaultPolicyReply: Codable, Sendable, Equatable {
        public var cachedSeconds: Int
        public init(cachedSeconds: Int) { self.cachedSeconds = cachedSeconds }
    }
}
