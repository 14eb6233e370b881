import AuthCore
public import Fingerprint
import Foundation
import Vault

/// Fingerprint unlocks: `verify`, and the touch that opens the notes, each by the vault's custody
/// (user mode's reader and keyring, or fingerlockd), with what both need.
extension AuthContext {
    /// One touch against the enrolled prints (`fingerlock verify`): the vault key comes from the
    /// cache, else from the passcode. Returns the finger that matched; a no-match counts towards
    /// lockout and throws `.authenticationFailed`.
    public func verifyTouch(finger: Finger?) async throws -> VerifiedTouch {
        guard passcodes.hasPasscode else { throw passcodeNotSet }
        return try await custody.verifyTouch(finger: finger)
    }

    func unlockWithFinger() async throws -> Vault {
        try await custody.unlockWithFinger()
    }

    func refuseRemoteSession() throws {
        if let remote = dependencies.remoteSession() {
            throw AuthError(.biometryNotAvailable, remote, unavailability: .remoteSession)
        }
    }

    /// The reader in effect, waiting for libfprint's enumeration if it is still running.
    func requireReader() async throws -> any FingerprintReader {
        let (reader, problem) = await dependencies.readerLookup.outcome()
        // libfprint's enumeration cannot be interrupted; a Ctrl-C during it takes effect here.
        try Task.checkCancellation()
        if let reader { return reader }
        if let problem { throw Self.authError(problem) }
        throw AuthError(.biometryNotAvailable, "No fingerprint reader is connected.", unavailability: .noReader)
    }

    /// Refuses a test reader on a hardware vault and a hardware reader on a test vault.
    func checkReaderKind(_ reader: any FingerprintReader, vault: Vault) throws {
        let kind = try Self.vaultCall { try vault.kind }
        if !ReaderKind(kind).accepts(reader.identity) {
            throw Self.wrongReaderKind(reader.identity.description, vaultKind: kind)
        }
    }

    /// The one line for a reader of the wrong kind, in user mode and from fingerlockd alike.
    static func wrongReaderKind(_ reader: String, vaultKind: VaultKind) -> AuthError {
        let message =
            vaultKind == .hardware
            ? "This vault was set up with real hardware; it does not accept the test reader \(reader)."
            : "This is a test vault (set up with a simulated or virtual reader); it does not accept \(reader). "
                + Self.newVaultForThisReader
        return AuthError(.biometryNotAvailable, message, unavailability: .wrongReaderKind)
    }

    /// A vault's kind is fixed when it is made: the notes move to a new vault made with this reader.
    static let newVaultForThisReader =
        "To use it, export the notes (`fingerlock export --output FILE`), set up a new vault with this reader in a "
        + "new data directory (`fingerlock --data-dir DIR passcode set`) and import them there "
        + "(`fingerlock --data-dir DIR notes import FILE`)."

    /// What leaving a scan means: the passcode, where one is offered; otherwise (`verify`) the
    /// command is cancelled — Enter, typing and Ctrl-C alike, since no passcode follows.
    static func scanLeft(typed: String, offerPasscode: Bool) -> AuthError {
        guard offerPasscode else { return AuthError(.userCancel, "Cancelled; no finger was checked.") }
        return AuthError(.userFallback, "The passcode was chosen.", detail: .userFallbackTyped(typed))
    }
}
