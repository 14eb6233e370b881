public import Crypto
public import FoundationEssentials

/// The passcode slot of a system-mode vault: the store master key sealed (AES-GCM) under
///
///     KEK = HKDF-SHA256(ikm: stretched || secret, info: "fingerlock system-mode passcode slot v1" || vault id)
///
/// where `stretched` is the client's scrypt output for the passcode and `secret` the per-vault
/// secret only the service holds. Without the secret a copy of the vault plus the right passcode
/// opens nothing; without the passcode the secret alone opens nothing either.
public enum SystemPasscodeSlot {
    public static let info = "fingerlock system-mode passcode slot v1"
    public static let keySize = 32
    /// nonce (12) + ciphertext (32) + tag (16).
    public static let sealedSize = 12 + keySize + 16

    public static func keyEncryptionKey(stretched: SymmetricKey, secret: SymmetricKey, vault: String) -> SymmetricKey {
        // The concatenation lives only in this local array, zeroed before it is dropped.
        var joined = [UInt8](repeating: 0, count: 0)
        joined.reserveCapacity(2 * keySize)
        stretched.withUnsafeBytes { joined.append(contentsOf: $0) }
        secret.withUnsafeBytes { joined.append(contentsOf: $0) }
        let ikm = SymmetricKey(data: joined)
        Zeroing.zero(&joined)
        return HKDF<SHA256>.deriveKey(
            inputKeyMaterial: ikm, info: Data((info + vault).utf8), outputByteCount: keySize)
    }

    public static func seal(_ key: SymmetricKey, with kek: SymmetricKey, authenticating associatedData: Data) throws
        -> Data
    {
        let box = try key.withUnsafeBytes { try AES.GCM.seal($0, using: kek, authenticating: associatedData) }
        guard let combined = box.combined else { throw CryptoKitError.incorrectParameterSize }
        return combined
    }

    /// The key in the slot, or nil when the KEK or the associated data is wrong or the slot damaged.
    public static func open(_ sealed: Data, with kek: SymmetricKey, authenticating associatedData: Data)
        -> SymmetricKey?
    {
        guard sealed.count == sealedSize, let box = try? AES.GCM.SealedBox(combined: sealed),
            var plain = try? AES.GCM.open(box, using: kek, authenticating: associatedData)
        else { return nil }
        defer { plain.resetBytes(in: plain.indices) }
        return SymmetricKey(data: plain)
    }
}
