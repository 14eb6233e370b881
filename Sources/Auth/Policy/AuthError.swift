public import Vault

/// Why an evaluation did not succeed — LocalAuthentication's `LAError`, for Linux — with the
/// sentence the user needs.
public struct AuthError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable, CaseIterable {
        /// The finger matched no enrolled print, or the passcode / recovery key was wrong.
        case authenticationFailed
        /// The user cancelled (Ctrl-C at the passcode prompt).
        case userCancel
        /// The user chose the passcode (biometrics-only policy).
        case userFallback
        /// Something else ended the evaluation (the process is shutting down).
        case systemCancel
        /// No vault exists yet: there is no passcode to fall back to.
        case passcodeNotSet
        /// No usable reader: none, no permission, busy, unplugged, wrong kind, no keyring, remote session.
        case biometryNotAvailable
        /// No finger is enrolled on this reader.
        case biometryNotEnrolled
        /// Too many failed touches: the passcode is required.
        case biometryLockout
        /// No finger arrived in time.
        case timeout
        /// A passcode delay is still running after repeated wrong passcodes.
        case passcodeDelay
        /// The passcode is required but nothing can ask for it (no terminal, no passcode source).
        case passcodeRequired
        /// The stored state is damaged or tampered with.
        case dataError
        /// A value given by the user is not acceptable (a setting out of range).
        case invalidInput
        /// A note or finger that does not exist.
        case notFound
        /// System mode: fingerlockd is unreachable or cannot open this vault's passcode slot.
        case serviceUnavailable
    }

    /// Why biometrics cannot be used, when `code` is `.biometryNotAvailable`.
    public enum Unavailability: String, Sendable, Equatable {
        case noReader, noPermission, busy, unplugged, deviceError, wrongReaderKind, noKeyring, remoteSession, noCachedKey,
            printNotStored,
            /// fprintd's fingers are not the set the vault accepted: the passcode accepts them.
            fingersChanged,
            /// A system-mode vault: nothing of it is in the user's keyring (touches go through fingerlockd).
            systemMode
    }

    /// Extra facts some codes carry.
    public enum Detail: Sendable, Equatable {
        /// What the user typed during the scan before asking for the passcode.
        case userFallbackTyped(String)
    }

    public var code: Code
    public var message: String
    public var unavailability: Unavailability?
    public var detail: Detail?
    /// What gets the user past the vault's error, when the vault reported one that has a remedy
    /// (the CLI words it as the command to run).
    public var remedy: VaultError.Remedy?

    public init(_ code: Code, _ message: String, unavailability: Unavailability? = nil, detail: Detail? = nil) {
        self.code = code
        self.message = message
        self.unavailability = unavailability
        self.detail = detail
    }

    init(_ code: Code, _ message: String, vaultError: VaultError) {
        self.init(code, message)
        remedy = vaultError.remedy
    }

    public var description: String { message }
}
