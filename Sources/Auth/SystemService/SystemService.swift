public import AuthCore
public import Crypto
public import Fingerprint
public import Foundation
public import TrustedPlatform
public import Vault

/// The one seam between the policy and fingerlockd (system mode): the service keeps a per-vault
/// secret entangled into the passcode slot and counts the passcode attempts, keeps the key in its
/// memory, scans, matches against the templates it keeps for the vault, and releases the key after
/// a matching touch. It lives below the wire protocol: `FingerlockServiceClient` adapts its Varlink
/// client to it, tests hand in a fake. Every failure is a `SystemServiceError` (or, for a scan
/// cancelled by its task, a `CancellationError`).
public protocol SystemService: Sendable {
    // MARK: The passcode slot

    /// Creates the vault's secret in the service if it has none yet.
    func register(vault: UUID) throws
    /// Seals `key` for `slot` under a key derived from the stretched passcode and the service's
    /// secret for the vault. Once the service sealed a slot for the vault, it seals another only for
    /// a caller holding the vault's key: `key` itself, or `currentKey` when `key` is a new one.
    func seal(_ key: SymmetricKey, for slot: PasscodeSlotBinding, authorizedBy currentKey: SymmetricKey?, tpm: TPMBinding?)
        throws -> Data
    /// Opens a sealed slot: the service counts the attempt first and enforces passcode delays; it
    /// keeps the key for a touch to release. `notify` is told what the proven passcode changed
    /// besides (a vault that takes fprintd's fingers accepts fprintd's set as it is now).
    func unlock(_ slot: SealedPasscodeSlot, notify: @escaping @Sendable (String) -> Void) throws -> SymmetricKey
    /// Deletes the vault's secret, counters and fingers, after the same proof (and counting) as
    /// `unlock`.
    func forgetVault(_ slot: SealedPasscodeSlot) throws
    /// What the service knows about `vault` (no secret): asks nothing, counts nothing.
    func status(vault: UUID) throws -> SystemVaultStatus

    // MARK: Touches and the key

    /// One touch; the key the service held for `vault`, released because the finger matched (or,
    /// with `reuse`, because the vault's reuse window is still open: no scan then).
    /// Cancelling the task cancels the scan in the service.
    /// `waiting` is told when another user's request holds the service's reader as this touch arrives.
    func unlockWithTouch(
        vault: UUID, finger: Finger?, timeout: Duration, reuse: Bool,
        waiting: @escaping @Sendable (OtherUsersRequest) -> Void
    ) async throws -> SystemTouch
    /// The key, when the vault's reuse window is open; never scans. Otherwise what a touch needs:
    /// the vault's tries and scan timeout as its owner told the service (nil: never told). So the
    /// touch prompt shows only when a touch is needed, as in user mode, in one round trip.
    func unlockWithoutScan(vault: UUID) async throws -> SystemReuse
    /// Tells the service the vault's settings (sealed in it), proven with its key; `counts` kept in
    /// user mode only ever raise the service's counters. The service shortens a cached key to the
    /// new cache-expiry.
    func setPolicy(vault: UUID, key: SymmetricKey, policy: SystemVaultPolicy, counts: AttemptState?) throws
    /// The policy the service applies to `vault` (nil: never told, the defaults apply).
    func policy(vault: UUID) throws -> SystemVaultPolicy?
    /// Makes the service forget the key it holds for `vault`, or (nil) for every vault of the
    /// caller's; returns whether it held one.
    func lock(vault: UUID?) throws -> Bool
    // MARK: Fingers

    /// Enrolls `finger` on the service's reader after the passcode proof; reports each step.
    func enroll(
        _ finger: Finger, proof: SealedPasscodeSlot, timeout: Duration,
        progress: @escaping @Sendable (EnrollEvent) -> Void
    ) async throws -> SystemEnrolledFinger
    /// The fingers the service keeps for `vault`.
    func fingers(vault: UUID) throws -> [SystemEnrolledFinger]
    /// Forgets `finger` after the passcode proof.
    func forget(_ finger: Finger, proof: SealedPasscodeSlot) async throws
    /// Hands a template enrolled in user mode to the service after the passcode proof
    /// (`system enable`); the service refuses one of another reader than its own.
    func importPrint(_ print: EnrolledPrint, proof: SealedPasscodeSlot) async throws
    /// The template the service keeps for `finger`, after the passcode proof (`system disable`).
    func exportPrint(_ finger: Finger, proof: SealedPasscodeSlot) throws -> EnrolledPrint
    /// After the passcode proof: with `use`, the vault's fingers become the caller's fingers
    /// enrolled with fprintd as they are now (returned); without, its own templates again (the set
    /// it had accepted returned, nil when it took none).
    func useFprintdFingers(_ use: Bool, proof: SealedPasscodeSlot) async throws -> AcceptedFingers?
}
