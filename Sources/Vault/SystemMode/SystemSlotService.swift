public import Crypto
public import Foundation

/// The seam between the vault and fingerlockd (system mode): what the vault asks of the service
/// for its system-mode passcode slot. The vault owns the slot's format (scrypt parameters,
/// associated data); the service owns the per-vault secret and the attempt counters.
///
/// It lives here, not in `FingerlockProtocol`, so the vault and the policy never import the wire
/// protocol: the CLI adapts its Varlink client to it, and tests hand in an in-memory fake. Every
/// failure is a `SystemSlotError`.
public protocol SystemSlotService: Sendable {
    /// Creates the vault's secret in the service if it has none yet.
    func register(vault: UUID) throws(SystemSlotError)
    /// Seals `key` under a key derived from `stretched` (the passcode's scrypt output) and the
    /// service's secret for `vault`, authenticating `associatedData`. Once the service sealed a slot
    /// for the vault, it seals another only for a caller holding the vault's key: `key` itself, or
    /// `currentKey` when `key` is a new one (rekey).
    func seal(
        vault: UUID, stretched: SymmetricKey, key: SymmetricKey, associatedData: [UInt8], authorizedBy currentKey: SymmetricKey?
    )
        throws(SystemSlotError) -> Data
    /// Opens a sealed slot: the service counts the attempt first and enforces passcode delays.
    func unlock(vault: UUID, stretched: SymmetricKey, sealedSlot: Data, associatedData: [UInt8])
        throws(SystemSlotError) -> SymmetricKey
    /// Forgets any key the service holds for `vault`.
    func lock(vault: UUID) throws(SystemSlotError)
    /// Deletes the vault's secret and counters, after the same proof (and counting) as `unlock`.
    func forget(vault: UUID, stretched: SymmetricKey, sealedSlot: Data, associatedData: [UInt8])
        throws(SystemSlotError)
    /// What the service knows about `vault` (no secret): asks nothing, counts nothing.
    func status(vault: UUID) throws(SystemSlotError) -> SystemVaultStatus
}

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

/// Why the service did not do what the vault asked, with the sentence the user needs.
public struct SystemSlotError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: Equatable, Sendable {
        /// The passcode did not open the slot; the service counted it.
        case wrongPasscode(failedPasscodes: Int, delaySeconds: Int)
        /// A passcode delay is still running; not counted.
        case delayed(secondsLeft: Int, failedPasscodes: Int)
        /// No service at the socket, it went away, did not answer in time, or is not the service user.
        case unreachable
        /// The service has no secret for this vault (it was forgotten, or the service's state was lost).
        case notRegistered
        /// The service answered with a failure of its own.
        case failure
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

/// The service for a vault that has none configured: every call says system mode is not available.
public struct NoSystemSlotService: SystemSlotService {
    public init() {}

    private var unavailable: SystemSlotError {
        SystemSlotError(.unreachable, "fingerlockd is not configured for this fingerlock.")
    }

    public func register(vault: UUID) throws(SystemSlotError) { throw unavailable }
    public func seal(
        vault: UUID, stretched: SymmetricKey, key: SymmetricKey, associatedData: [UInt8], authorizedBy currentKey: SymmetricKey?
    )
        throws(SystemSlotError) -> Data
    { throw unavailable }
    public func unlock(vault: UUID, stretched: SymmetricKey, sealedSlot: Data, associatedData: [UInt8])
        throws(SystemSlotError) -> SymmetricKey
    { throw unavailable }
    public func lock(vault: UUID) throws(SystemSlotError) { throw unavailable }
    public func forget(vault: UUID, stretched: SymmetricKey, sealedSlot: Data, associatedData: [UInt8])
        throws(SystemSlotError)
    { throw unavailable }
    public func status(vault: UUID) throws(SystemSlotError) -> SystemVaultStatus { throw unavailable }
}
