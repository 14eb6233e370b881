/// What fingerlockd knows about one vault of the caller's; nothing in it is a secret.
public struct SystemVaultStatus: Sendable, Equatable {
    /// The service holds the vault's secret (without it the passcode opens nothing).
    public var registered: Bool
    /// The vault's key is cached in the service's memory, for `unlockedSeconds` more.
    public var unlocked: Bool
    public var unlockedSeconds: Int
    /// Wrong passcodes in a row, counted by the service, and the wait before the next try (0: none).
    public var failedPasscodes: Int
    public var delaySeconds: Int
    /// Failed touches in a row, counted by the service, and whether they reached its lockout (the
    /// key forgotten until the passcode).
    public var failedTouches: Int
    public var touchLockedOut: Bool
    /// Seconds left of the vault's reuse window in the service (nil: the vault has none).
    public var reuseSeconds: Int?

    public init(
        registered: Bool, unlocked: Bool, unlockedSeconds: Int, failedPasscodes: Int, delaySeconds: Int,
        failedTouches: Int = 0, touchLockedOut: Bool = false, reuseSeconds: Int? = nil
    ) {
        self.registered = registered
        self.unlocked = unlocked
        self.unlockedSeconds = unlockedSeconds
        self.failedPasscodes = failedPasscodes
        self.delaySeconds = delaySeconds
        self.failedTouches = failedTouches
        self.touchLockedOut = touchLockedOut
        self.reuseSeconds = reuseSeconds
    }
}
