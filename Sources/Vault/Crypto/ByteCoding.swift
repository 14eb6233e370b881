public import Foundation

/// A tiny length-prefixed binary encoding for sealed plaintexts and associated data. JSON would
/// do, but decoding 100k note headers with JSONDecoder costs most of a listing; this costs nothing.
/// Public for what others seal in the vault (enrolled prints).
public struct ByteWriter {
    public private(set) var bytes: [UInt8] = []

    public init(capacity: Int = 64) { bytes.reserveCapacity(capacity) }

    public mutating func u8(_ value: UInt8) { bytes.append(value) }

    public mutating func u32(_ value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    public mutating func u64(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    public mutating func raw<C: Collection<UInt8>>(_ value: C) { bytes.append(contentsOf: value) }

    /// Length-prefixed bytes, so neighbouring fields can never run into each other.
    public mutating func field<C: Collection<UInt8>>(_ value: C) {
        u32(UInt32(value.count))
        bytes.append(contentsOf: value)
    }

    public mutating func string(_ value: String) { field(Array(value.utf8)) }

    public mutating func date(_ value: Date) { u64(value.timeIntervalSinceReferenceDate.bitPattern) }

    public var data: Data { Data(bytes) }
}

/// Reads what `ByteWriter` wrote; any short or malformed input is a `nil` (the caller decides what
/// that means — after AEAD authentication it cannot happen unless we wrote it wrong).
public struct ByteReader {
    private let bytes: [UInt8]
    private var offset = 0

    public init<C: Collection<UInt8>>(_ bytes: C) { self.bytes = Array(bytes) }

    public var isAtEnd: Bool { offset == bytes.count }

    public mutating func u8() -> UInt8? {
        guard offset < bytes.count else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    public mutating func u32() -> UInt32? {
        guard let raw = take(4) else { return nil }
        return raw.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self)) }
    }

    public mutating func u64() -> UInt64? {
        guard let raw = take(8) else { return nil }
        return raw.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
    }

    public mutating func take(_ count: Int) -> ArraySlice<UInt8>? {
        guard count >= 0, bytes.count - offset >= count else { return nil }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    public mutating func field() -> ArraySlice<UInt8>? {
        guard let count = u32() else { return nil }
        return take(Int(count))
    }

    public mutating func string() -> String? {
        guard let raw = field() else { return nil }
        // ASCII needs no validation, and `String(decoding:)` of a buffer takes a specialised path;
        // `String(validating:)` runs generic code here (metadata lookups for every string: 8% of a
        // listing's instructions for a title and two tags per note). Anything else is validated.
        return raw.withUnsafeBufferPointer { buffer in
            buffer.allSatisfy { $0 < 0x80 }
                ? String(decoding: buffer, as: UTF8.self) : String(validating: buffer, as: UTF8.self)
        }
    }

    public mutating func date() -> Date? {
        guard let raw = u64() else { return nil }
        return Date(timeIntervalSinceReferenceDate: Double(bitPattern: raw))
    }
}
