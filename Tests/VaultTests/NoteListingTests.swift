import FingerlockTestSupport
import Foundation
import Testing

@testable import Vault

/// The listing's order and cut, for small and large listings, whole and limited.
@Suite(.timed) struct NoteListingTests {
    /// Summaries in no order: few distinct dates, so most ties are broken by the id.
    static func shuffledSummaries(_ count: Int) -> [NoteSummary] {
        (0..<count).map { index in
            NoteSummary(
                id: UUID(), title: "n \(index)", tags: [], created: Date(timeIntervalSince1970: 0),
                modified: Date(timeIntervalSince1970: Double(index % 97) * 3_600))
        }.shuffled()
    }

    /// Newest change first, then the id's bytes: the order `NoteListing` promises.
    static func expectedOrder(_ summaries: [NoteSummary]) -> [UUID] {
        summaries.sorted { a, b in
            if a.modified != b.modified { return a.modified > b.modified }
            return withUnsafeBytes(of: a.id.uuid) { x in withUnsafeBytes(of: b.id.uuid) { y in x.lexicographicallyPrecedes(y) } }
        }.map(\.id)
    }

    @Test(
        "every size lists newest first, ties by id, with and without a limit",
        arguments: [0, 1, 2, 1000, 1001, 50_001])
    func order(count: Int) {
        let summaries = Self.shuffledSummaries(count)
        let expected = Self.expectedOrder(summaries)
        var all = NoteListing(limit: nil)
        all.add(contentsOf: summaries)
        #expect(all.finish().map(\.id) == expected)
        var newest = NoteListing(limit: 1000)
        for start in stride(from: 0, to: count, by: 777) { newest.add(contentsOf: Array(summaries[start..<min(start + 777, count)])) }
        #expect(newest.finish().map(\.id) == Array(expected.prefix(1000)))
    }
}
