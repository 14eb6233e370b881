import Crypto
import Foundation

/// The recovery key: 256 random bits, shown once as 13 groups of 4 characters (Crockford base32:
/// no I, L, O or U, so nothing reads as another symbol). Input ignores case, spaces and dashes, and
/// reads O as 0 and I or L as 1.
public struct RecoveryKey: Sendable, CustomStringConvertible {
    static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
    static let characterCount = 52  // ceil(256 / 5)

    let bytes: [UInt8]

    init(bytes: [UInt8]) { self.bytes = bytes }

    static func random() -> RecoveryKey { RecoveryKey(bytes: randomBytes(32)) }

    /// A new random recovery key, to show the user before the change that makes it valid
    /// (`Vault.create(…recoveryKey:)`, `rekey(…recoveryKey:)`), so a key that cannot be shown is
    /// never the only way back in.
    public static func generate() -> RecoveryKey { random() }

    /// Parses what a user typed; nil when it cannot be a recovery key at all (wrong length or a
    /// character outside the alphabet), so the caller can say "that is not a recovery key".
    public init?(parsing text: String) {
        var values: [UInt8] = []
        for character in text.uppercased() {
            if character == "-" || character == " " || character == "\t" || character == "\n" || character == "\r" {
                continue
            }
            let mapped: Character
            switch character {
            case "O": mapped = "0"
            case "I", "L": mapped = "1"
            default: mapped = character
            }
            guard let index = Self.alphabet.firstIndex(of: mapped) else { return nil }
            values.append(UInt8(index))
        }
        guard values.count == Self.characterCount else { return nil }
        var bytes: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for value in values {
            buffer = (buffer << 5) | UInt32(value)
            bits += 5
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
                buffer &= (1 << UInt32(bits)) - 1
            }
        }
        // 52 × 5 = 260 bits: the last 4 must be zero, or it is a typo rather than a key.
        guard bytes.count == 32, bits == 4, buffer == 0 else { return nil }
        self.bytes = bytes
    }

    /// The grouped form to show the user once: "ABCD-EFGH-...".
    public var displayString: String {
        var characters: [Character] = []
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | UInt32(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                characters.append(Self.alphabet[Int((buffer >> UInt32(bits)) & 31)])
            }
            buffer &= (1 << UInt32(bits)) - 1
        }
        if bits > 0 { characters.append(Self.alphabet[Int((buffer << UInt32(5 - bits)) & 31)]) }
        var groups: [String] = []
        var index = 0
        while index < characters.count {
            groups.append(String(characters[index..<min(index + 4, characters.count)]))
            index += 4
        }
        return groups.joined(separator: "-")
    }

    /// Redacted, so a key never lands in a log by accident; use `displayString` to show it.
    public var description: String { "RecoveryKey(redacted)" }
}
