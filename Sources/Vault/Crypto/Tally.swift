import Crypto
import Foundation

/// A keyed multiset hash: the sum, modulo 2^256, of HMAC(tallyKey, element) over a set of
/// elements, plus their count. Adding, removing or replacing one element updates it in O(1), and
/// without the key nobody can compute the sum for a set with a row deleted or rolled back.
struct Tally: Equatable, Sendable {
    typealias Element = [UInt64]
    /// An element as four limbs, for scans that add 100k of them (an array each is an allocation).
    typealias Limbs = (UInt64, UInt64, UInt64, UInt64)

    /// The 256-bit sum as little-endian 64-bit limbs, held inline: a scan adds to 257 tallies
    /// per row, and an array of limbs made each addition a uniqueness check and an indirection.
    private var low: UInt64 = 0
    private var second: UInt64 = 0
    private var third: UInt64 = 0
    private var high: UInt64 = 0
    var count: UInt64 = 0

    mutating func add(_ h: Element) {
        add((h[0], h[1], h[2], h[3]))
    }

    mutating func add(_ limbs: Limbs) {
        addToSum(limbs)
        count &+= 1
    }

    /// Adds a whole other tally (its sum and its count), as if its elements were added one by one.
    mutating func add(_ other: Tally) {
        addToSum((other.low, other.second, other.third, other.high))
        count &+= other.count
    }

    private mutating func addToSum(_ h: Limbs) {
        var carry: UInt64 = 0
        (low, carry) = Self.add(low, h.0, carry)
        (second, carry) = Self.add(second, h.1, carry)
        (third, carry) = Self.add(third, h.2, carry)
        (high, _) = Self.add(high, h.3, carry)
    }

    /// `a + b + carry` and the carry out.
    private static func add(_ a: UInt64, _ b: UInt64, _ carry: UInt64) -> (UInt64, UInt64) {
        let (s1, o1) = a.addingReportingOverflow(b)
        let (s2, o2) = s1.addingReportingOverflow(carry)
        return (s2, (o1 ? 1 : 0) + (o2 ? 1 : 0))
    }

    mutating func remove(_ h: Element) {
        var borrow: UInt64 = 0
        (low, borrow) = Self.subtract(low, h[0], borrow)
        (second, borrow) = Self.subtract(second, h[1], borrow)
        (third, borrow) = Self.subtract(third, h[2], borrow)
        (high, _) = Self.subtract(high, h[3], borrow)
        count &-= 1
    }

    /// `a - b - borrow` and the borrow out.
    private static func subtract(_ a: UInt64, _ b: UInt64, _ borrow: UInt64) -> (UInt64, UInt64) {
        let (d1, o1) = a.subtractingReportingOverflow(b)
        let (d2, o2) = d1.subtractingReportingOverflow(borrow)
        return (d2, (o1 ? 1 : 0) + (o2 ? 1 : 0))
    }

    func write(to writer: inout ByteWriter) {
        writer.u64(count)
        for limb in [low, second, third, high] { writer.u64(limb) }
    }

    static func read(from reader: inout ByteReader) -> Tally? {
        guard let count = reader.u64(), let low = reader.u64(), let second = reader.u64(), let third = reader.u64(),
            let high = reader.u64()
        else { return nil }
        var tally = Tally()
        tally.count = count
        (tally.low, tally.second, tally.third, tally.high) = (low, second, third, high)
        return tally
    }

    /// Constant-time enough: both sides are recomputed by us; the sum is not a secret to compare
    /// against attacker guesses (a mismatch ends the operation).
    func matches(_ other: Tally) -> Bool {
        let difference =
            (count ^ other.count) | (low ^ other.low) | (second ^ other.second) | (third ^ other.third)
            | (high ^ other.high)
        return difference == 0
    }
}

/// The kinds of rows the manifest counts; the kind is the first byte of every element, so an
/// element of one kind can never stand in for another.
enum TallyKind: UInt8, Sendable {
    case note = 1
    case template = 2
    case setting = 3
    case trash = 4
    case revision = 5
}

/// Computes the elements H(kind, key, revision). Keeps the keyed HMAC state and copies it per
/// element, so 100k elements cost 100k short hashes rather than 100k key schedules.
struct TallyHasher: Sendable {
    private let keyed: HMAC<SHA256>

    init(key: SymmetricKey) { keyed = HMAC<SHA256>(key: key) }

    func element(_ kind: TallyKind, _ key: [[UInt8]], revision: UInt64) -> [UInt64] {
        var writer = ByteWriter(capacity: 80)
        writer.u8(kind.rawValue)
        for part in key { writer.field(part) }
        writer.u64(revision)
        return finish(writer.bytes)
    }

    private func finish(_ message: [UInt8]) -> [UInt64] {
        var mac = keyed
        mac.update(data: message)
        let code = mac.finalize()
        return code.withUnsafeBytes { raw in
            [
                UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self)),
                UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)),
                UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self)),
                UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 24, as: UInt64.self)),
            ]
        }
    }

    /// The same bytes as `element(.note, [id], revision)`, built in one buffer (hot in listings).
    func note(_ id: String, revision: UInt64) -> [UInt64] {
        var writer = ByteWriter(capacity: 56)
        writer.u8(TallyKind.note.rawValue)
        writer.u32(UInt32(id.utf8.count))
        writer.raw(id.utf8)
        writer.u64(revision)
        return finish(writer.bytes)
    }

    func template(reader: String, finger: String, revision: UInt64) -> [UInt64] {
        element(.template, [Array(reader.utf8), Array(finger.utf8)], revision: revision)
    }

    func setting(_ key: String, revision: UInt64) -> [UInt64] {
        element(.setting, [Array(key.utf8)], revision: revision)
    }

    /// A note in the trash: its deletion time (whole seconds) is counted too, so it cannot be moved
    /// back to make the note purged sooner.
    func trash(_ id: String, revision: UInt64, deleted: Int64) -> [UInt64] {
        var stamp = ByteWriter(capacity: 8)
        stamp.u64(UInt64(bitPattern: deleted))
        return element(.trash, [Array(id.utf8), stamp.bytes], revision: revision)
    }

    /// An earlier revision of note `id`, kept in its history.
    func revision(_ id: String, number: UInt64) -> [UInt64] {
        element(.revision, [Array(id.utf8)], revision: number)
    }
}
