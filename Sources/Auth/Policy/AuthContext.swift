import AuthCore
import Fingerprint
import Foundation
public import Vault

/// Decides who may open the vault and hands it its key — LocalAuthentication's `LAContext` for
/// fingerlock: whether a policy can run now, running it, opening the notes, and the passcode unlock
/// the evaluation falls back to. Everything else (enrolling, the passcode's life cycle, restore,
/// the mode, the reader's storage, status, lock, settings, `verify`) is a use case of its own under
/// `UseCases/`, made from the same `AuthEnvironment`; what differs between the modes is the vault's
/// `KeyCustody` (`Custody/`). Commands parse, call one method, render.
public final class AuthContext: Sendable {
    /// What this context shares with the use cases of the same command.
    public let environment: AuthEnvironment
    private var passcodes: any PasscodeRepository { environment.passcodes }
    private var interaction: any AuthInteraction { environment.interaction }
    /// Resolved at each call: a use case beside this context may have moved the vault.
    private var custody: any KeyCustody { environment.custody }

    public init(_ environment: AuthEnvironment) {
        self.environment = environment
    }

    // MARK: - Availability

    /// Nil when `policy` can run now; otherwise why not (as `LAContext.canEvaluatePolicy`).
    /// Checks what can be known without unlocking: a vault, remote session, reader, keyring, a
    /// cached key, lockout.
    public func canEvaluate(_ policy: AuthPolicy) async -> AuthError? {
        guard passcodes.hasPasscode else { return AuthError.passcodeNotSet }
        do {
            try await custody.checkBiometrics()
            return nil
        } catch {
            let authError = AuthError.from(error)
            if policy == .biometricsOrPasscode && interaction.canAskPasscode { return nil }
            if policy == .biometricsOrPasscode { return AuthError(.passcodeRequired, authError.message + " " + AuthError.noTerminal) }
            return authError
        }
    }

    // MARK: - Evaluation

    /// Runs `policy` and returns the unlocked vault. `reason` is shown at the passcode prompt.
    public func evaluate(_ policy: AuthPolicy, reason: String) async throws -> Vault {
        guard passcodes.hasPasscode else { throw AuthError.passcodeNotSet }
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

    /// Opens the notes to show their titles (`ls`, and TAB in the shell): without a touch while this
    /// process's keyring holds the vault's key (user mode), as completion shows them, else as
    /// `openNotes`. The one rule for titles shown without a touch; a body always takes the touch.
    public func openTitles(reason: String = "list your notes") async throws -> Vault {
        if let vault = try custody.openIfCached() { return vault }
        return try await openNotes(reason: reason)
    }

    /// Opens the vault with a key already cached (user mode), never asking anything: nil when there
    /// is none. For work that follows a command the user already authorised (the automatic sync).
    public func openIfCached() throws -> Vault? {
        try custody.openIfCached()
    }

    /// Always asks for the passcode, then caches the key for fingerprint unlocks (what `evaluate`
    /// falls back to, and what tests and scripts use to open the vault without a touch).
    public func unlockWithPasscode(reason: String, typedAhead: String = "", why: AuthError? = nil) async throws -> Vault {
        try await PasscodeUnlock(environment).unlockWithPasscode(reason: reason, typedAhead: typedAhead, why: why)
    }

    private func unlockWithFinger() async throws -> Vault {
        try await custody.unlockWithFinger()
    }

    private static func fallsBack(_ code: AuthError.Code) -> Bool {
        switch code {
        case .authenticationFailed, .userFallback, .timeout, .biometryNotAvailable, .biometryNotEnrolled, .biometryLockout:
            true
        default:
            false
        }
    }
}
