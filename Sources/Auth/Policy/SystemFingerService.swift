public import AuthCore
public import Crypto
public import Fingerprint
public import Foundation
public import Vault

/// The seam between the policy and fingerlockd's reader (system mode): the service scans, matches
/// against the templates it keeps for the vault, and releases the key it holds after a passcode.
/// Like `SystemSlotService` it lives below the wire protocol: the CLI adapts its Varlink client to
/// it, tests hand in a fake. Failures are `SystemFingerError`s.
public protocol SystemFingerService: Sendable {
    /// One touch; the key the service held for `vault`, released because the finger matched (or,
    /// with `reuse`, because the vault's reuse window is still open: no scan then).
    /// Cancelling the task cancels the scan in the service.
    func unlockWithTouch(vault: UUID, finger: Finger?, timeout: Duration, reuse: Bool) async throws -> SystemTouch
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
    /// Enrolls `finger` on the service's reader after the passcode proof; reports each step.
    func enroll(
        _ finger: Finger, proof: SystemPasscodeProof, timeout: Duration,
        progress: @escaping @Sendable (EnrollEvent) -> Void
    ) async throws -> SystemEnrolledFinger
    /// The fingers the service keeps for `vault`.
    func fingers(vault: UUID) throws -> [SystemEnrolledFinger]
    /// Forgets `finger` after the passcode proof.
    func forget(_ finger: Finger, proof: SystemPasscodeProof) async throws
    /// Hands a template enrolled in user mode to the service after the passcode proof
    /// (`system enable`); the service refuses one of another reader than its own.
    func importPrint(_ print: EnrolledPrint, proof: SystemPasscodeProof) async throws
    /// The template the service keeps for `finger`, after the passcode proof (`system disable`).
    func exportPrint(_ finger: Finger, proof: SystemPasscodeProof) throws -> EnrolledPrint
}

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

/// What `unlockWithoutScan` found.
public enum SystemReuse: Sendable {
    /// Released within the reuse window.
    case released(SymmetricKey)
    /// A touch is needed: with the vault's tries and scan timeout, when its owner told them.
    case scanNeeded(tries: Int?, scanTimeout: Duration?)
}

/// What a matching touch released.
public struct SystemTouch: Sendable {
    public var key: SymmetricKey
    /// The finger that matched and its reader; nil when the key was released within the reuse
    /// window, without a scan.
    public var finger: Finger?
    public var reader: ReaderIdentity?
    /// Whether the service knows the vault's settings (nil: it did not say).
    public var policyKnown: Bool?

    public init(key: SymmetricKey, finger: Finger?, reader: ReaderIdentity?, policyKnown: Bool? = nil) {
        self.key = key
        self.finger = finger
        self.reader = reader
        self.policyKnown = policyKnown
    }
}

/// A finger the service keeps for a vault (its template never leaves the service).
public struct SystemEnrolledFinger: Sendable, Equatable {
    public var finger: Finger
    public var reader: ReaderIdentity
    public var enrolled: Date

    public init(finger: Finger, reader: ReaderIdentity, enrolled: Date) {
        self.finger = finger
        self.reader = reader
        self.enrolled = enrolled
    }
}

/// Why the service's reader did not release a key or change the enrolled set.
public struct SystemFingerError: Error, Sendable {
    public enum Code: Sendable {
        /// The service holds no key for the vault (`lockout`: it forgot it after failed touches).
        case passcodeRequired(lockout: Bool)
        case noFingerEnrolled(reader: String)
        case fingerNotEnrolled(Finger)
        /// Counted; `touchesLeft` 0: the service forgot the key.
        case noMatch(failedTouches: Int, touchesLeft: Int)
        case retry(RetryReason)
        case timedOut
        /// Asked to release without a scan outside the reuse window: a touch is needed, with the
        /// vault's tries and scan timeout when its owner told them.
        case scanNeeded(tries: Int?, scanTimeoutSeconds: Int?)
        /// The reader cannot scan (no reader, busy, unplugged, …), as the reader would say it.
        case reader(FingerprintError)
        /// A template made on `reader` cannot match on the service's reader (`serviceReader`,
        /// empty when it has none).
        case readerMismatch(reader: String, serviceReader: String)
        /// The service's reader `reader` is of the wrong kind for this `kind` of vault.
        case wrongReaderKind(reader: String, kind: VaultKind)
        /// The passcode proof was refused, or the service is unreachable or failed.
        case slot(SystemSlotError)
    }

    public var code: Code

    public init(_ code: Code) { self.code = code }
}

/// For a vault with no service configured.
public struct NoSystemFingerService: SystemFingerService {
    public init() {}

    private var unavailable: SystemFingerError {
        SystemFingerError(.slot(SystemSlotError(.unreachable, "fingerlockd is not configured for this fingerlock.")))
    }

    public func unlockWithoutScan(vault: UUID) async throws -> SystemReuse { throw unavailable }

    public func unlockWithTouch(vault: UUID, finger: Finger?, timeout: Duration, reuse: Bool) async throws -> SystemTouch {
        throw unavailable
    }
    public func setPolicy(vault: UUID, key: SymmetricKey, policy: SystemVaultPolicy, counts: AttemptState?) throws {
        throw unavailable
    }
    public func policy(vault: UUID) throws -> SystemVaultPolicy? { throw unavailable }
    public func lock(vault: UUID?) throws -> Bool { throw unavailable }
    public func enroll(
        _ finger: Finger, proof: SystemPasscodeProof, timeout: Duration,
        progress: @escaping @Sendable (EnrollEvent) -> Void
    ) async throws -> SystemEnrolledFinger { throw unavailable }
    public func fingers(vault: UUID) throws -> [SystemEnrolledFinger] { throw unavailable }
    public func forget(_ finger: Finger, proof: SystemPasscodeProof) async throws { throw unavailable }
    public func importPrint(_ print: EnrolledPrint, proof: SystemPasscodeProof) async throws { throw unavailable }
    public func exportPrint(_ finger: Finger, proof: SystemPasscodeProof) throws -> EnrolledPrint { throw unavailable }
}
