public import Crypto

/// What unlocks a vault.
public enum VaultCredential: Sendable {
    /// The app passcode (normalised to Unicode NFC before use).
    case passcode(String)
    /// The recovery key as the user typed it: case, spaces and dashes do not matter.
    case recoveryKey(String)
    /// A store master key from elsewhere (the key cache). Checked against the vault's key-check
    /// value before anything is decrypted or written with it.
    case masterKey(SymmetricKey)
}
