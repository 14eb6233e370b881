/// The TPM's dictionary-attack counter as the shares rule reads it (`TPM2_GetCapability`): one
/// counter for the whole machine, whoever's failures it holds.
public struct TPMCounterReading: Codable, Equatable, Sendable {
    /// Failed authorizations the TPM remembers now (`TPM_PT_LOCKOUT_COUNTER`).
    public var failedTries: Int
    /// How many it takes before it locks out (`TPM_PT_MAX_AUTH_FAIL`).
    public var maximumTries: Int
    /// Seconds after which it forgets one failure (`TPM_PT_LOCKOUT_INTERVAL`); 0: never by itself.
    public var interval: Int

    public init(failedTries: Int, maximumTries: Int, interval: Int) {
        self.failedTries = failedTries
        self.maximumTries = maximumTries
        self.interval = interval
    }
}
