/// RFC 4648 base32, as authenticator apps write an OTP secret: upper or lower case, with or without
/// `=` padding, spaces and dashes ignored (people copy secrets in groups).
enum Base32 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    /// The bytes `text` encodes; nil when it holds a character outside the alphabet, padding in the
    /// middle, or a length no encoder makes.
    static func decode(_ text: String) -> [UInt8]? {
        var values: [UInt8] = []
        var padding = 0
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "-"): continue
            case UInt8(ascii: "="):
                padding += 1
                continue
            default: break
            }
            guard padding == 0 else { return nil }
            let upper = byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") ? byte - 32 : byte
            guard let value = alphabet.firstIndex(of: upper) else { return nil }
            values.append(UInt8(value))
        }
        // Each 8 characters carry 5 bytes; a final group of 2, 4, 5 or 7 characters carries 1-4.
        guard [0, 2, 4, 5, 7].contains(values.count % 8) else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(values.count * 5 / 8)
        var buffer: UInt32 = 0
        var bits = 0
        for value in values {
            buffer = (buffer << 5) | UInt32(value)
            bits += 5
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
        }
        return bytes
    }
}
