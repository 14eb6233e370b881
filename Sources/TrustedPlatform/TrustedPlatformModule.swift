public import Crypto

/// The TPM as fingerlock uses it: it seals a secret under an authorization value, in an object
/// only this TPM can load, and unseals it for the right value while counting wrong ones toward its
/// dictionary-attack lockout. The real one talks ESAPI (`ESAPIModule`); tests use it on swtpm.
public protocol TrustedPlatformModule: Sendable {
    /// Where the TPM is reached (a TCTI configuration string), for messages.
    var location: String { get }

    /// Seals `secret` so that it unseals only on this TPM, with `authorization` (and, with
    /// `bindingPCR7`, only while PCR 7 holds what it holds now). Returns the sealed object.
    func seal(_ secret: SymmetricKey, authorization: SymmetricKey, bindingPCR7: Bool) throws(TPMError) -> [UInt8]

    /// The secret in `object`, for `authorization`. A wrong one costs a failed authorization that the
    /// TPM counts.
    func unseal(_ object: [UInt8], authorization: SymmetricKey, bindingPCR7: Bool) throws(TPMError) -> SymmetricKey

    /// Whether this TPM can still use `object` (it loads under this TPM's storage key and, with
    /// `bindingPCR7`, PCR 7 still matches its policy), without authorizing it: no failure counted.
    func check(_ object: [UInt8], bindingPCR7: Bool) throws(TPMError)

    /// The dictionary-attack counter and parameters.
    func lockoutState() throws(TPMError) -> TPMLockoutState
}
