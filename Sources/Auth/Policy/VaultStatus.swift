public import Fingerprint
public import Vault

/// What `fingerlock status` may say without a touch or the passcode: nothing in it is a secret.
/// What is sealed in the vault (the enrolled fingers, the vault's kind) is known only while a key
/// is cached; otherwise it is nil, "locked".
public struct VaultStatus: Sendable, Equatable {
    /// One enrolled finger (its template stays inside the vault).
    public struct EnrolledFinger: Sendable, Equatable {
        public var finger: Finger
        public var reader: ReaderIdentity
    }

    /// Whether a passcode has been set (the vault exists).
    public var setUp: Bool
    /// Whether a cached key opens the vault, so a touch unlocks it.
    public var unlocked: Bool
    /// How long the cached key has left, as the key cache can tell (the kernel rounds down to its
    /// unit: seconds, minutes, hours, days); nil when locked or unknown.
    public var keyExpiresIn: Duration?
    /// How long the reuse window (no touch needed) still runs; nil when none is running.
    public var reuseWindowLeft: Duration?
    /// Failed touches in a row, and whether they have turned fingerprint unlock off.
    public var failedTouches: Int
    public var lockedOut: Bool
    /// Wrong passcodes in a row, and the wait before the next attempt (nil: none).
    public var failedPasscodes: Int
    public var passcodeDelayLeft: Duration?
    /// Nil while locked: they are sealed in the vault.
    public var enrolledFingers: [EnrolledFinger]?
    /// Nil while locked: the kind is only trusted once the key verifies it.
    public var kind: VaultKind?
    /// `user` or `system` (as recorded in the vault, read without unlocking it).
    public var mode: String
    /// Why no key can be cached here at all (no usable keyring), or nil.
    public var keyCacheUnavailable: String?
    /// In system mode, what fingerlockd said about the vault, or why it could not be asked; nil in
    /// user mode. When it answered, `failedPasscodes` and `passcodeDelayLeft` are its counters.
    public var service: Service?

    /// fingerlockd's view of a system-mode vault.
    public enum Service: Sendable, Equatable {
        case answered(SystemVaultStatus)
        /// The one-line reason, with its fix.
        case unreachable(String)
    }
}
