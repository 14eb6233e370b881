public import Crypto
public import FoundationEssentials

/// What ties a vault's passcode proofs to the slot the vault holds, and who may seal the next:
/// without it any process of the user could have the service seal a slot for a passcode of its own
/// choosing, and then "prove" that passcode to reset the counters, enroll its own finger or forget
/// the vault.
///
/// The service seals a slot before the client's transaction puts it in the vault, and cannot see
/// that transaction: so it keeps two (slot, key) pairs, each an HMAC-SHA256 under the vault's
/// secret, so the file alone says nothing:
/// - the slot and key sealed last (`slotDigest`, `keyVerifier`), and
/// - the slot and key last seen in use (`previousSlotDigest`, `previousKeyVerifier`): until the slot
///   sealed last is seen in use (proven, which the client does right after its transaction commits,
///   or, after a rekey, its new key shown), the vault may still hold the earlier slot (a passcode
///   change or rekey that failed or was killed after sealing), and that slot still proves its
///   passcode, so a failed change never leaves no passcode that works. Once it is seen, only the
///   slot sealed last is a proof: an older copy of a slot is a wrong passcode.
///
/// Sealing needs the key of either pair: the caller shows it holds the vault key (after the
/// passcode or the recovery key). Nothing but sealing ever accepts the key before a rekey, and only
/// until the new key is seen in use: the key of an old backup must not outlive the rekey that was
/// run to retire it.
public struct SlotBinding: Sendable, Equatable {
    /// Four HMACs; a binding written before the slot in use was kept has three (that slot is the
    /// one sealed last).
    public static let encodedSize = 4 * 32
    static let legacyEncodedSize = 3 * 32

    public var slotDigest: Data
    public var keyVerifier: Data
    public var previousKeyVerifier: Data
    public var previousSlotDigest: Data

    public init(slotDigest: Data, keyVerifier: Data, previousKeyVerifier: Data, previousSlotDigest: Data) {
        self.slotDigest = slotDigest
        self.keyVerifier = keyVerifier
        self.previousKeyVerifier = previousKeyVerifier
        self.previousSlotDigest = previousSlotDigest
    }

    public init?(encoded: [UInt8]) {
        guard encoded.count == Self.encodedSize || encoded.count == Self.legacyEncodedSize else { return nil }
        slotDigest = Data(encoded[0..<32])
        keyVerifier = Data(encoded[32..<64])
        previousKeyVerifier = Data(encoded[64..<96])
        previousSlotDigest = encoded.count == Self.encodedSize ? Data(encoded[96..<128]) : slotDigest
    }

    public var encoded: [UInt8] {
        [UInt8](slotDigest) + [UInt8](keyVerifier) + [UInt8](previousKeyVerifier) + [UInt8](previousSlotDigest)
    }

    /// Which of the binding's slots a proof showed.
    public enum Proven: Sendable, Equatable {
        /// The slot sealed last: from now on it is the only proof.
        case sealedLast
        /// The slot in use before the last seal, which the vault may still hold.
        case previous
    }

    public static func slotDigest(_ sealed: Data, associatedData: Data, secret: SymmetricKey) -> Data {
        var message = Data("fingerlock slot binding v1 slot".utf8)
        withUnsafeBytes(of: UInt32(sealed.count).bigEndian) { message.append(contentsOf: $0) }
        message.append(sealed)
        message.append(associatedData)
        return Data(HMAC<SHA256>.authenticationCode(for: message, using: secret))
    }

    public static func keyVerifier(_ key: SymmetricKey, secret: SymmetricKey) -> Data {
        var message = [UInt8]("fingerlock slot binding v1 key".utf8)
        key.withUnsafeBytes { message.append(contentsOf: $0) }
        defer { Zeroing.zero(&message) }
        return Data(HMAC<SHA256>.authenticationCode(for: message, using: secret))
    }

    /// Whether `key` may seal a slot: the vault's key, or the one before it while no use of the new
    /// one has been seen (constant time).
    public func authorizes(_ key: SymmetricKey, secret: SymmetricKey) -> Bool {
        let candidate = Self.keyVerifier(key, secret: secret)
        let current = Self.constantTimeEqual(candidate, keyVerifier)
        let previous = Self.constantTimeEqual(candidate, previousKeyVerifier)
        return current || previous
    }

    /// Whether `key` is the vault's key now (constant time): the only proof of an open vault for
    /// anything but sealing.
    public func isCurrent(_ key: SymmetricKey, secret: SymmetricKey) -> Bool {
        Self.constantTimeEqual(Self.keyVerifier(key, secret: secret), keyVerifier)
    }

    /// The binding once the key sealed last has been seen in use (shown by the caller): after a
    /// rekey, a key that differs from the one before proves its transaction committed, so the slot
    /// sealed with it is the vault's and the key before it seals nothing more. Nil when nothing
    /// changes (the same key, as after a passcode change, says nothing about which slot the vault
    /// holds: only proving the slot does).
    public var confirmed: SlotBinding? {
        Self.constantTimeEqual(previousKeyVerifier, keyVerifier) ? nil : provenInUse
    }

    /// The binding once the slot sealed last has been proven: only it proves anything from now on.
    public var provenInUse: SlotBinding? {
        if Self.constantTimeEqual(previousKeyVerifier, keyVerifier) && Self.constantTimeEqual(previousSlotDigest, slotDigest) {
            return nil
        }
        return SlotBinding(
            slotDigest: slotDigest, keyVerifier: keyVerifier, previousKeyVerifier: keyVerifier, previousSlotDigest: slotDigest)
    }

    /// Which slot of the binding `sealed` with `associatedData` is, if any (constant time).
    public func proves(_ sealed: Data, associatedData: Data, secret: SymmetricKey) -> Proven? {
        let digest = Self.slotDigest(sealed, associatedData: associatedData, secret: secret)
        let last = Self.constantTimeEqual(digest, slotDigest)
        let previous = Self.constantTimeEqual(digest, previousSlotDigest)
        return last ? .sealedLast : previous ? .previous : nil
    }

    /// The binding after sealing `sealed` (holding `key`): the slot and key in use stay as they
    /// were until the new slot is seen in use, however many seals come before that.
    public func resealed(_ sealed: Data, associatedData: Data, key: SymmetricKey, secret: SymmetricKey) -> SlotBinding {
        SlotBinding(
            slotDigest: Self.slotDigest(sealed, associatedData: associatedData, secret: secret),
            keyVerifier: Self.keyVerifier(key, secret: secret), previousKeyVerifier: previousKeyVerifier,
            previousSlotDigest: previousSlotDigest)
    }

    public static func first(_ sealed: Data, associatedData: Data, key: SymmetricKey, secret: SymmetricKey) -> SlotBinding {
        let verifier = keyVerifier(key, secret: secret)
        let digest = slotDigest(sealed, associatedData: associatedData, secret: secret)
        return SlotBinding(slotDigest: digest, keyVerifier: verifier, previousKeyVerifier: verifier, previousSlotDigest: digest)
    }

    static func constantTimeEqual(_ a: Data, _ b: Data) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) { difference |= x ^ y }
        return difference == 0
    }
}
