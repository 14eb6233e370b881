import FingerlockTestSupport
import Testing

@testable import Vault

/// The keyed multiset sum's arithmetic: carries and borrows across all four limbs, modulo 2^256,
/// and the order-free merging the scan's workers rely on.
@Suite(.timed) struct TallyTests {
    static let max = UInt64.max

    /// The tally's serialised form: count, then the limbs lowest first.
    func words(_ tally: Tally) -> [UInt64] {
        var writer = ByteWriter()
        tally.write(to: &writer)
        return stride(from: 0, to: writer.bytes.count, by: 8).map { offset in
            writer.bytes[offset..<offset + 8].reversed().reduce(0) { $0 << 8 | UInt64($1) }
        }
    }

    @Test func aCarryRunsThroughEveryLimbAndWrapsAt2To256() {
        var tally = Tally()
        tally.add([Self.max, Self.max, Self.max, 0])
        tally.add([1, 0, 0, 0])
        #expect(words(tally) == [2, 0, 0, 0, 1])
        tally.add([0, 0, 0, Self.max])
        tally.add((0, 0, 0, 1))
        // 2^256 wraps to zero; the count does not.
        #expect(words(tally) == [4, 0, 0, 0, 1])
        // 2^192 + (2^256 - 1) is 2^192 - 1 modulo 2^256.
        tally.add([Self.max, Self.max, Self.max, Self.max])
        #expect(words(tally) == [5, Self.max, Self.max, Self.max, 0])
    }

    @Test func removingUndoesAddingAcrossBorrows() {
        let elements: [[UInt64]] = [[Self.max, 3, Self.max, 7], [5, Self.max, 0, Self.max], [1, 0, 0, 0]]
        var tally = Tally()
        for element in elements { tally.add(element) }
        for element in elements.reversed() { tally.remove(element) }
        #expect(tally == Tally())
        var below = Tally()
        below.remove([1, 0, 0, 0])
        #expect(words(below) == [Self.max, Self.max, Self.max, Self.max, Self.max])
    }

    @Test func mergedSharesEqualOneTallyInAnyOrder() {
        var generator = SystemRandomNumberGenerator()
        let elements = (0..<200).map { _ in (0..<4).map { _ in UInt64.random(in: 0...Self.max, using: &generator) } }
        var whole = Tally()
        for element in elements { whole.add(element) }
        var first = Tally()
        var second = Tally()
        for (index, element) in elements.shuffled().enumerated() {
            if index % 3 == 0 { first.add((element[0], element[1], element[2], element[3])) } else { second.add(element) }
        }
        var merged = second
        merged.add(first)
        #expect(merged == whole)
        #expect(merged.matches(whole))
        merged.add([1, 0, 0, 0])
        merged.remove([1, 0, 0, 0])
        merged.count &+= 1
        #expect(!merged.matches(whole))
    }

    @Test func itReadsBackWhatItWrote() {
        var tally = Tally()
        tally.add([9, 8, 7, 6])
        tally.add([Self.max, 1, 2, 3])
        var writer = ByteWriter()
        tally.write(to: &writer)
        var reader = ByteReader(writer.bytes)
        #expect(Tally.read(from: &reader) == tally)
        var short = ByteReader(writer.bytes.dropLast())
        #expect(Tally.read(from: &short) == nil)
    }
}
