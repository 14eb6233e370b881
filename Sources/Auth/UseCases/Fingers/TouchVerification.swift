import AuthCore
public import Fingerprint
import Foundation
import Vault

/// `verify`: one touch against the enrolled prints, through the vault's custody (user mode's reader
/// and keyring, or fingerlockd).
public struct TouchVerification: Sendable {
    let environment: AuthEnvironment
    var passcodes: any PasscodeRepository { environment.passcodes }
    /// The vault's custody, held by the environment for the command.
    var custody: any KeyCustody { environment.custody }

    public init(_ environment: AuthEnvironment) {
        self.environment = environment
        // A verification always touches: whether the session is remote is asked now, beside the
        // header read that chooses the custody, rather than after it.
        environment.remoteSessionCheck.start()
        _ = environment.custody
    }

    /// What `verify` reports.
    public struct VerifiedTouch: Sendable {
        /// The finger that matched; nil when the fingers' keeper does not say which (fprintd
        /// identifying among all of a user's fingers).
        public var finger: Finger?
        public var reader: ReaderIdentity
        /// Whether the touch was matched against every enrolled finger (false: only the first).
        public var identified: Bool
    }

    /// One touch against the enrolled prints (`fingerlock verify`): the vault key comes from the
    /// cache, else from the passcode. Returns the finger that matched (when known); a no-match counts towards
    /// lockout and throws `.authenticationFailed`.
    public func verifyTouch(finger: Finger?) async throws -> VerifiedTouch {
        guard passcodes.hasPasscode else { throw AuthError.passcodeNotSet }
        return try await custody.verifyTouch(finger: finger)
    }
}
