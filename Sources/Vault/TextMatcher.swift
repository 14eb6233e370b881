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
struct TextMatcher {
    let query: String
    private let lowered: String
    private let asciiQuery: [UInt8]?
    private var scratch: [UInt8] = []

    init(_ query: String) {
        self.query = query
        lowered = query.lowercased()
        let bytes = Array(query.utf8)
        asciiQuery = bytes.allSatisfy { $0 < 0x80 } ? bytes.map(Self.fold) : nil
    }

    private static func fold(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }

    mutating func matches(_ text: String) -> Bool {
        if lowered.isEmpty { return true }
        var text = text
        return text.withUTF8 { matches(utf8: UnsafeRawBufferPointer($0)) }
    }

    mutating func matches(utf8 data: Data) -> Bool {
        if lowered.isEmpty { return true }
        return data.withUnsafeBytes { matches(utf8: $0) }
    }

    private mutating func matches(utf8 buffer: UnsafeRawBufferPointer) -> Bool {
        guard let needle = asciiQuery else { return unicodeMatch(buffer) }
        if buffer.count < needle.count { return false }
        var isASCII = true
        if scratch.count < buffer.count { scratch = [UInt8](repeating: 0, count: buffer.count) }
        scratch.withUnsafeMutableBufferPointer { out in
            for index in 0..<buffer.count {
                let byte = buffer[index]
                if byte >= 0x80 { isASCII = false }
                out[index] = Self.fold(byte)
            }
        }
        // Non-ASCII text may hold characters that lowercase to ASCII (e.g. the Kelvin sign).
        guard isASCII else { return unicodeMatch(buffer) }
        return scratch.withUnsafeBytes { haystack in
            needle.withUnsafeBytes { needleBytes in
                Self.find(needleBytes, in: UnsafeRawBufferPointer(rebasing: haystack[0..<buffer.count]))
            }
        }
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
}
