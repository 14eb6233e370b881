import Foundation

/// One of 256 groups of notes, by the first byte of the note id (the first two hex digits of its
/// stored form). The manifest keeps a tally per bucket, so reading one note checks only its
/// bucket's (id, revision) pairs — about n/256 of them — rather than the whole set.
struct NoteBucket: Equatable, Sendable {
    static let count = 256

    let index: Int

    init(_ id: UUID) { index = Int(id.uuid.0) }

    /// The bucket of a stored id; nil when the id does not start with two lowercase hex digits,
    /// which no id fingerlock writes does.
    init?(storedID id: String) {
        var digits = id.utf8.makeIterator()
        guard let high = digits.next().flatMap(Self.hexValue), let low = digits.next().flatMap(Self.hexValue) else {
            return nil
        }
        index = high << 4 | low
    }

    /// The same, from the stored id's UTF-8 bytes.
    init?(storedID bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= 2, let high = Self.hexValue(bytes[0]), let low = Self.hexValue(bytes[1]) else { return nil }
        index = high << 4 | low
    }

    /// The range of stored ids in this bucket, `lowerBound <= id < upperBound`: ids are lowercase
    /// hex and dashes, so every id of bucket 0xab starts with "ab" and sorts below "ac", and every
    /// id sorts below "g".
    var lowerBound: String { Self.prefix(index) }
    var upperBound: String { index + 1 < Self.count ? Self.prefix(index + 1) : "g" }

    private static func prefix(_ index: Int) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[index >> 4], digits[index & 0xF]])
    }

    private static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(byte - UInt8(ascii: "a") + 10)
        default: nil
        }
    }
}
