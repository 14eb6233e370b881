public import Crypto
public import FoundationEssentials

/// A passcode slot bound to the TPM, as stored in the vault: the TPM's sealed object, and the slot
/// its inner sealer made (user mode's AES-GCM, or fingerlockd's), under a key that needs both the
/// passcode and the TPM's secret.
///
/// The passcode's stretched key (scrypt's output) is split in two with HKDF: one half is the
/// authorization value of a random 32-byte secret the TPM seals (a DA-protected object), the other
/// is mixed with that secret into the key the inner sealer gets in the passcode's place:
///
///     authorization = HKDF(stretched, info: "fingerlock tpm authorization v1" || vault)
///     half          = HKDF(stretched, info: "fingerlock tpm passcode half v1" || vault)
///     slot key      = HKDF(half || secret, info: "fingerlock tpm-bound passcode slot v1" || vault)
///
/// So the vault file alone offers nothing to guess against (each guess needs the TPM, which counts
/// it), and the TPM's secret alone (a broken firmware TPM) still needs the passcode.
///
/// Encoding: "FLTPM" (5 bytes), version 1, flags (bit 0: PCR 7), the sealed object's length (2
/// bytes, big endian), the sealed object, then the inner slot. Slots that are not bound are what
/// their sealer wrote (60 bytes, no prefix); they never start with the magic, because a bound slot
/// is told by its length and prefix together and an unbound one is exactly 60 bytes.
public struct TPMBoundSlot: Sendable, Equatable {
    public static let magic: [UInt8] = Array("FLTPM".utf8)
    public static let version: UInt8 = 1
    /// What unbound slots measure (nonce, key, tag): never a bound one.
    public static let unboundSize = 12 + 32 + 16

    public var binding: TPMBinding
    public var sealedObject: [UInt8]
    public var inner: Data

    public init(binding: TPMBinding, sealedObject: [UInt8], inner: Data) {
        self.binding = binding
        self.sealedObject = sealedObject
        self.inner = inner
    }

    /// Whether `sealed` is a bound slot (whatever its state): not a bare sealer's 60 bytes.
    public static func isBound(_ sealed: Data) -> Bool {
        sealed.count != unboundSize && sealed.starts(with: magic)
    }

    /// The binding recorded in `sealed`, or nil for an unbound slot (or one that does not parse).
    public static func binding(of sealed: Data) -> TPMBinding? {
        (try? TPMBoundSlot(decoding: sealed))?.binding
    }

    public init(decoding sealed: Data) throws(TPMError) {
        let bytes = [UInt8](sealed)
        let header = Self.magic.count + 4
        guard Self.isBound(sealed), bytes.count > header, bytes[Self.magic.count] == Self.version else {
            throw TPMError(.malformed, "The passcode slot is not a TPM-bound slot fingerlock wrote.")
        }
        let flags = bytes[Self.magic.count + 1]
        let length = Int(bytes[Self.magic.count + 2]) << 8 | Int(bytes[Self.magic.count + 3])
        guard flags & ~1 == 0, length > 0, bytes.count > header + length else {
            throw TPMError(.malformed, "The TPM-bound passcode slot is damaged.")
        }
        binding = TPMBinding(pcr7: flags & 1 != 0)
        sealedObject = Array(bytes[header..<(header + length)])
        inner = Data(bytes[(header + length)...])
    }

    public var encoded: Data {
        var bytes = Self.magic
        bytes.append(Self.version)
        bytes.append(binding.pcr7 ? 1 : 0)
        bytes.append(UInt8(sealedObject.count >> 8))
        bytes.append(UInt8(sealedObject.count & 0xff))
        bytes += sealedObject
        return Data(bytes) + inner
    }

    // MARK: - Keys

    /// The TPM object's authorization value: one half of the stretched passcode.
    public static func authorization(stretched: SymmetricKey, vault: UUID) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: stretched, info: Data(("fingerlock tpm authorization v1" + vault.uuidString).utf8),
            outputByteCount: 32)
    }

    /// The key the inner sealer gets in the stretched passcode's place: the other half mixed with
    /// the TPM's secret.
    public static func slotKey(stretched: SymmetricKey, secret: SymmetricKey, vault: UUID) -> SymmetricKey {
        let half = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: stretched, info: Data(("fingerlock tpm passcode half v1" + vault.uuidString).utf8),
            outputByteCount: 32)
        var joined = [UInt8]()
        joined.reserveCapacity(64)
        half.withUnsafeBytes { joined.append(contentsOf: $0) }
        secret.withUnsafeBytes { joined.append(contentsOf: $0) }
        defer { joined.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) } }
        return HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: joined),
            info: Data(("fingerlock tpm-bound passcode slot v1" + vault.uuidString).utf8), outputByteCount: 32)
    }

    // MARK: - Sealing and opening through a TPM

    /// Seals a fresh secret in `tpm` for `stretched`, then has `sealInner` seal the vault's key under
    /// the slot key; returns the bound slot's bytes.
    public static func seal(
        stretched: SymmetricKey, vault: UUID, binding: TPMBinding, tpm: any TrustedPlatformModule,
        sealInner: (SymmetricKey) throws -> Data
    ) throws -> Data {
        let secret = SymmetricKey(size: .bits256)
        let object = try tpm.seal(
            secret, authorization: authorization(stretched: stretched, vault: vault), bindingPCR7: binding.pcr7)
        let inner = try sealInner(slotKey(stretched: stretched, secret: secret, vault: vault))
        return TPMBoundSlot(binding: binding, sealedObject: object, inner: inner).encoded
    }

    /// The slot key of this bound slot for `stretched`: fingerlock's lockout rule first (it never
    /// asks a TPM that one more failure would lock), then the TPM, which counts a wrong passcode.
    public func slotKey(stretched: SymmetricKey, vault: UUID, tpm: any TrustedPlatformModule) throws(TPMError) -> SymmetricKey {
        if let refusal = try tpm.lockoutState().refusal { throw refusal }
        let secret: SymmetricKey
        do {
            secret = try tpm.unseal(
                sealedObject, authorization: Self.authorization(stretched: stretched, vault: vault),
                bindingPCR7: binding.pcr7)
        } catch let error where error.code == .authorizationFailed {
            // Read back what the TPM counted, for the message.
            guard let state = try? tpm.lockoutState() else { throw error }
            throw TPMError(
                .authorizationFailed,
                "Wrong passcode (the TPM counted it: \(state.failedTries) of the \(state.maximumTries) failed authorizations"
                    + " it allows before it locks out).")
        } catch let error where error.code == .lockout(seconds: 0) {
            throw (try? tpm.lockoutState())?.refusal ?? error
        }
        return Self.slotKey(stretched: stretched, secret: secret, vault: vault)
    }
}
