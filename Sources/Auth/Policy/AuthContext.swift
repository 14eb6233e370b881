public import AuthCore
public import Fingerprint
public import Foundation
public import Vault
import Synchronization

/// Decides who may open the vault and hands it its key — LocalAuthentication's `LAContext` for
/// fingerlock. Its use cases (the files `AuthContext+*.swift`, one concern each) make every decision
/// about unlocking, enrolling, forgetting, restoring and locking, and leave what differs between the
/// modes to the vault's `KeyCustody` (`Custody/`); commands parse, call one method, render.
/// Every collaborator is injected; only the executable assembles the real ones.
public final class AuthContext: Sendable {
    public struct Dependencies: Sendable {
        /// The vault behind its key slots: where the passcode lives.
        public var passcodes: any PasscodeRepository
        /// The reader in effect (nil when none is connected, with the problem when enumerating failed:
        /// no permission, busy…), possibly still being found.
        public var readerLookup: ReaderLookup
        /// Every connected reader, for work that concerns them all (forgetting a finger deletes its
        /// copy from each reader's own storage).
        public var connectedReaders: @Sendable () async -> [any FingerprintReader]
        public var keyCache: any KeyCache
        /// Where the reuse window's markers live: apart from the keys, so `lock` counts keys only.
        public var reuseMarkers: any KeyCache
        public var attempts: any AttemptStore
        public var interaction: any AuthInteraction
        /// Why this is a remote session (so the finger is skipped), or nil for a local one.
        public var remoteSession: @Sendable () -> String?
        public var now: @Sendable () -> Date
        /// Whether the reader chosen (even if absent right now) is a test reader; fixes the kind of
        /// a vault created now. Nil: judged from the reader found.
        public var testReaderChosen: Bool?
        /// fingerlockd, for a system-mode vault: its passcode slot, key, counters, reader and fingers.
        public var systemService: any SystemService

        public init(
            passcodes: any PasscodeRepository, readerLookup: ReaderLookup, keyCache: any KeyCache,
            reuseMarkers: any KeyCache, attempts: any AttemptStore, interaction: any AuthInteraction,
            remoteSession: @escaping @Sendable () -> String?, now: @escaping @Sendable () -> Date,
            connectedReaders: @escaping @Sendable () async -> [any FingerprintReader] = { [] },
            testReaderChosen: Bool? = nil, systemService: any SystemService = NoSystemService()
        ) {
            self.passcodes = passcodes
            self.readerLookup = readerLookup
            self.keyCache = keyCache
            self.reuseMarkers = reuseMarkers
            self.attempts = attempts
            self.interaction = interaction
            self.remoteSession = remoteSession
            self.now = now
            self.connectedReaders = connectedReaders
            self.testReaderChosen = testReaderChosen
            self.systemService = systemService
        }
    }

    /// Wrong passcodes accepted in one evaluation at a terminal before giving up.
    public static let passcodePromptsPerEvaluation = 3
    /// Retry hints tolerated in one evaluation (they do not count as tries).
    static let maximumRetryHints = 10

    let dependencies: Dependencies
    /// The vault's store id and recorded mode, read once per context (each read opens the database)
    /// and forgotten when `system enable`/`disable`, a passcode reset or a restore may change them.
    /// Nil until read, or when there is no vault yet.
    let recordedHeader = Mutex<VaultHeader?>(nil)
    var passcodes: any PasscodeRepository { dependencies.passcodes }
    var interaction: any AuthInteraction { dependencies.interaction }
    /// The rules both modes host, over this user's counters and keyring.
    var touchLedger: TouchLedger { TouchLedger(dependencies.attempts) }
    var passcodeLedger: PasscodeLedger { PasscodeLedger(dependencies.attempts, now: dependencies.now) }
    var reuseWindow: ReuseWindow { ReuseWindow(markers: dependencies.reuseMarkers, now: dependencies.now) }
    /// The same window, opened only by the passcode (never a touch): what `enroll` may reuse.
    var passcodeWindow: ReuseWindow { ReuseWindow(markers: dependencies.reuseMarkers, suffix: ":passcode", now: dependencies.now) }

    public init(_ dependencies: Dependencies) {
        self.dependencies = dependencies
    }

    // MARK: - Availability

    /// Nil when `policy` can run now; otherwise why not (as `LAContext.canEvaluatePolicy`).
    /// Checks what can be known without unlocking: a vault, remote session, reader, keyring, a
    /// cached key, lockout.
    public func canEvaluate(_ policy: AuthPolicy) async -> AuthError? {
        guard passcodes.hasPasscode else { return passcodeNotSet }
        do {
            try await custody.checkBiometrics()
            return nil
        } catch {
            let authError = Self.authError(error)
            if policy == .biometricsOrPasscode && interaction.canAskPasscode { return nil }
            if policy == .biometricsOrPasscode { return AuthError(.passcodeRequired, authError.message + " " + Self.noTerminal) }
            return authError
        }
    }

    // MARK: - Evaluation

    /// Runs `policy` and returns the unlocked vault. `reason` is shown at the passcode prompt.
    public func evaluate(_ policy: AuthPolicy, reason: String) async throws -> Vault {
        guard passcodes.hasPasscode else { throw passcodeNotSet }
        if policy == .biometricsOrPasscode && interaction.passcodeFromScript {
            return try await unlockWithPasscode(reason: reason)
        }
        do {
            return try await unlockWithFinger()
        } catch let error as AuthError where policy == .biometricsOrPasscode && Self.fallsBack(error.code) {
            // Without a way to ask, a finger that did not match is a plain failure (exit 1); only
            // where the passcode is needed does the caller learn that it is (exit 8).
            if !interaction.canAskPasscode && [.authenticationFailed, .timeout].contains(error.code) { throw error }
            var typedAhead = ""
            if case .userFallbackTyped(let typed) = error.detail { typedAhead = typed }
            if error.code != .userFallback && interaction.canAskPasscode { interaction.notify(error.message) }
            return try await unlockWithPasscode(reason: reason, typedAhead: typedAhead, why: error)
        }
    }

    /// Opens the notes: a touch first, then the passcode (`notes`, `backup`, `export`).
    public func openNotes(reason: String = "open your notes") async throws -> Vault {
        try await evaluate(.biometricsOrPasscode, reason: reason)
    }

    // MARK: - Errors

    var passcodeNotSet: AuthError {
        AuthError(.passcodeNotSet, "No passcode is set yet: run `fingerlock passcode set` to create the vault.")
    }
    var noCachedKey: AuthError {
        AuthError(
            .biometryNotAvailable,
            "The passcode is needed first (after a reboot, `fingerlock lock`, or when the cached key expires).",
            unavailability: .noCachedKey)
    }
    var lockout: AuthError {
        AuthError(.biometryLockout, "Too many failed touches: fingerprint unlock is off until the passcode is entered.")
    }
    func notEnrolled(_ reader: any FingerprintReader) -> AuthError {
        AuthError(.biometryNotEnrolled, "No finger is enrolled on \(reader.identity); run `fingerlock enroll`.")
    }
    static func passcodeDelayed(_ delay: PasscodeDelay) -> AuthError {
        AuthError(
            .passcodeDelay,
            "Too many wrong passcodes (\(delay.failures)): try again in \(PasscodeDelays.describe(delay.left)).")
    }
    static let noTerminal = "There is no terminal to ask for it: use --passcode-stdin or --passcode-fd N."

    static func fallsBack(_ code: AuthError.Code) -> Bool {
        switch code {
        case .authenticationFailed, .userFallback, .timeout, .biometryNotAvailable, .biometryNotEnrolled, .biometryLockout:
            true
        default:
            false
        }
    }

    /// Maps the layers below onto `AuthError`.
    static func authError(_ error: any Error) -> AuthError {
        switch error {
        case let error as AuthError:
            return error
        case is CancellationError:
            return AuthError(.userCancel, "Cancelled.")
        case let error as FingerprintError:
            switch error.code {
            case .timedOut: return AuthError(.timeout, error.message)
            case .userFallback: return AuthError(.userFallback, error.message, detail: .userFallbackTyped(""))
            case .noReader: return AuthError(.biometryNotAvailable, error.message, unavailability: .noReader)
            case .permissionDenied: return AuthError(.biometryNotAvailable, error.message, unavailability: .noPermission)
            case .busy: return AuthError(.biometryNotAvailable, error.message, unavailability: .busy)
            case .unplugged: return AuthError(.biometryNotAvailable, error.message, unavailability: .unplugged)
            default: return AuthError(.biometryNotAvailable, error.message, unavailability: .deviceError)
            }
        case let error as VaultError:
            switch error.code {
            case .notFound: return AuthError(.passcodeNotSet, error.message)
            case .sealerUnavailable: return AuthError(.serviceUnavailable, error.message, vaultError: error)
            case .passcodeDelayed: return AuthError(.passcodeDelay, error.message, vaultError: error)
            default: return AuthError(.dataError, error.message, vaultError: error)
            }
        case let error as KeyCacheError:
            return AuthError(.biometryNotAvailable, error.message, unavailability: .noKeyring)
        case let error as AttemptStoreError:
            return AuthError(.dataError, error.message)
        case let delay as PasscodeDelay:
            return passcodeDelayed(delay)
        case let busy as PasscodesStillInFlight:
            return AuthError(.passcodeDelay, busy.message)
        default:
            return AuthError(.dataError, String(describing: error))
        }
    }

    static func vaultCall<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch { throw authError(error) }
    }
}
