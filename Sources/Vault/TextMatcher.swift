import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Case-insensitive substring search. Most notes are ASCII: for an ASCII query and ASCII text the
/// bytes are case-folded into a scratch buffer and searched with `memmem`, which keeps a search
/// over 100k notes well under the budget; anything else takes the exact Unicode path.
struct TextMatcher: Sendable {
    let query: String
    private let lowered: String
    private let asciiQuery: [UInt8]?

    init(_ query: String) {
        self.query = query
        lowered = query.lowercased()
        let bytes = Array(query.utf8)
        asciiQuery = bytes.allSatisfy { $0 < 0x80 } ? bytes.map(Self.fold) : nil
    }

    private static func fold(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }

    func matches(_ text: String) -> Bool {
        if lowered.isEmpty { return true }
        if let result = text.utf8.withContiguousStorageIfAvailable({ matches(utf8: UnsafeRawBufferPointer($0)) }) {
            return result
        }
        return unicodeMatch(Array(text.utf8))
    }

    func matches(utf8 data: Data) -> Bool {
        if lowered.isEmpty { return true }
        return data.withUnsafeBytes { matches(utf8: $0) }
    }

    func matches(utf8 buffer: UnsafeRawBufferPointer) -> Bool {
        guard let needle = asciiQuery else { return unicodeMatch(buffer) }
        if buffer.count < needle.count { return false }
        // Immutable matcher, folding into a temporary buffer (on the stack for note-sized text):
        // no shared scratch state, so no exclusivity bookkeeping per note.
        return withUnsafeTemporaryAllocation(byteCount: buffer.count, alignment: 8) { scratch in
            // Non-ASCII text may hold characters that lowercase to ASCII (e.g. the Kelvin sign).
            guard Self.foldASCII(buffer, into: scratch) else { return unicodeMatch(buffer) }
            return needle.withUnsafeBytes { needleBytes in
                Self.find(needleBytes, in: UnsafeRawBufferPointer(scratch))
            }
        }
    }

    /// Lowercases ASCII letters of `source` into `target` eight bytes at a time (SWAR); returns
    /// whether every byte was ASCII.
    private static func foldASCII(_ source: UnsafeRawBufferPointer, into target: UnsafeMutableRawBufferPointer) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        var nonASCII: UInt64 = 0
        var index = 0
        while index + 8 <= source.count {
            let word = source.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            nonASCII |= word
            let low7 = word & ~highBits
            // High bit set in a byte where 'A' <= byte, and where byte > 'Z' (for ASCII bytes).
            let atLeastA = (low7 &+ (0x80 - 0x41) &* ones) & highBits
            let aboveZ = (low7 &+ (0x80 - 0x5B) &* ones) & highBits
            let upper = atLeastA & ~aboveZ & ~word & highBits
            target.storeBytes(of: word | (upper >> 2), toByteOffset: index, as: UInt64.self)
            index += 8
        }
        while index < source.count {
            let byte = source[index]
            nonASCII |= UInt64(byte)
            target[index] = fold(byte)
            index += 1
        }
        return nonASCII & highBits == 0
    }

    /// memchr for the first byte, memcmp for the rest (glibc's memmem is not exported to Swift).
    private static func find(_ needle: UnsafeRawBufferPointer, in haystack: UnsafeRawBufferPointer) -> Bool {
        guard let base = haystack.baseAddress, let needleBase = needle.baseAddress else { return needle.isEmpty }
        let first = Int32(needle[0])
        let lastStart = haystack.count - needle.count
        var start = 0
        while start <= lastStart {
            guard let hit = memchr(base + start, first, lastStart - start + 1) else { return false }
            if memcmp(hit, needleBase, needle.count) == 0 { return true }
            start = base.distance(to: UnsafeRawPointer(hit)) + 1
        }
        return false
    }

    private func unicodeMatch(_ buffer: UnsafeRawBufferPointer) -> Bool {
        String(decoding: buffer, as: UTF8.self).lowercased().contains(lowered)
    }

    private func unicodeMatch(_ bytes: [UInt8]) -> Bool {
        String(decoding: bytes, as: UTF8.self).lowercased().contains(lowered)
    }
}
