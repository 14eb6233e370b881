/// Why the TPM did not seal or unseal a secret, in the terms the user acts on. The sentences name
/// the TPM only; callers add what still opens the vault (the recovery key).
public struct TPMError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: Equatable, Sendable {
        /// The authorization value (the passcode's half) was wrong; the TPM counted it.
        case authorizationFailed
        /// The TPM is in dictionary-attack lockout: it refuses every DA-protected object, the right
        /// passcode included, for about `seconds`.
        case lockout(seconds: Int)
        /// fingerlock refused to ask: one more wrong try would put the TPM in lockout (which would
        /// also stop everything else on the machine that uses it). Try again in about `seconds`.
        case nearLockout(seconds: Int)
        /// No TPM where the TCTI points, or one this user may not open.
        case unreachable
        /// The sealed object does not load: made by another TPM, or this one was cleared.
        case foreignObject
        /// PCR 7 (the Secure Boot state) differs from when the secret was sealed.
        case policyMismatch
        /// The blob stored with the slot is not a sealed object fingerlock wrote.
        case malformed
        /// The TPM cannot take the command now (out of memory for loaded objects or sessions, busy,
        /// self-testing): nothing was judged; try again.
        case busy
        /// Anything else the TPM or the TSS reported.
        case failed
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
