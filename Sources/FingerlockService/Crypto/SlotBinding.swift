public import Crypto
public import Foundation

/// What ties a vault's passcode proofs to the one slot the service last sealed, and who may seal the
/// next: without it any process of the user could have the service seal a slot for a passcode of its
/// own choosing, and then "prove" that passcode to reset the counters, enroll its own finger or
/// forget the vault.
///
/// Both values are HMAC-SHA256 under the vault's secret, so the file alone says nothing:
/// - `slotDigest` — of the sealed slot and its associated data. A proof counts only for that slot.
/// - `keyVerifiers` — of the store key in the slot, and of the key before it (rekey). Sealing a new
///   slot needs one of them: the caller shows it holds the vault key (after the passcode or the
///   recovery key). The previous key is kept so a rekey that sealed here but crashed before its
///   transaction committed can still be resealed with the key the vault kept — and only until the
///   new key is seen in use (`confirmed`): the key of an old backup must not outlive the rekey that
///   was run to retire it. Nothing but sealing ever accepts the previous key.
public struct SlotBinding: Sendable, Equatable {
    public static let encodedSize = 3 * 32

    public var slotDigest: Data
    public var keyVerifier: Data
    public var previousKeyVerifier: Data

    public init(slotDigest: Data, keyVerifier: Data, previousKeyVerifier: Data) {
        self.slotDigest = slotDigest
        self.keyVerifier = keyVerifier
        self.previousKeyVerifier = previousKeyVerifier
    }

    public init?(encoded: [UInt8]) {
        guard encoded.count == Self.encodedSize else { return nil }
        slotDigest = Data(encoded[0..<32])
        keyVerifier = Data(encoded[32..<64])
        previousKeyVerifier = Data(encoded[64..<96])
    }

    public var encoded: [UInt8] { [UInt8](slotDigest) + [UInt8](keyVerifier) + [UInt8](previousKeyVerifier) }

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

    /// The binding once the vault's key has been seen in use (shown, or its slot proven): the key
    /// before a rekey no longer seals anything. Nil when it already does not.
    public var confirmed: SlotBinding? {
        Self.constantTimeEqual(previousKeyVerifier, keyVerifier)
            ? nil : SlotBinding(slotDigest: slotDigest, keyVerifier: keyVerifier, previousKeyVerifier: keyVerifier)
    }

    /// Whether `sealed` with `associatedData` is the slot bound here (constant time).
    public func binds(_ sealed: Data, associatedData: Data, secret: SymmetricKey) -> Bool {
        Self.constantTimeEqual(Self.slotDigest(sealed, associatedData: associatedData, secret: secret), slotDigest)
    }

    /// The binding after sealing `sealed` (holding `key`): the key before it is remembered when
    /// the key changes (a rekey, or resealing the kept key after a rekey that never committed);
    /// sealing the same key again (a passcode change) shows it in use, so nothing older is kept.
    public func resealed(_ sealed: Data, associatedData: Data, key: SymmetricKey, secret: SymmetricKey) -> SlotBinding {
        let verifier = Self.keyVerifier(key, secret: secret)
        let keyChanged = !Self.constantTimeEqual(verifier, keyVerifier)
        return SlotBinding(
            slotDigest: Self.slotDigest(sealed, associatedData: associatedData, secret: secret),
            keyVerifier: verifier, previousKeyVerifier: keyChanged ? keyVerifier : verifier)
    }

    public static func first(_ sealed: Data, associatedData: Data, key: SymmetricKey, secret: SymmetricKey) -> SlotBinding {
        let verifier = keyVerifier(key, secret: secret)
        return SlotBinding(
            slotDigest: slotDigest(sealed, associatedData: associatedData, secret: secret), keyVerifier: verifier,
            previousKeyVerifier: verifier)
    }

    static func constantTimeEqual(_ a: Data, _ b: Data) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) { difference |= x ^ y }
        return difference == 0
    }
}
