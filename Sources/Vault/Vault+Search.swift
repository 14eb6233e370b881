import Dispatch
import Foundation
import GRDB

extension Vault {
    /// Notes whose title, body or a tag contains `query` (only the title with `titlesOnly`),
    /// ignoring case, among those `filter` keeps; newest change first. Reads and verifies the whole
    /// set like `list`.
    ///
    /// Searching means decrypting every body, so rows are read in batches and each batch is
    /// decrypted and matched on all cores; the manifest tally is summed in row order afterwards.
    /// A title-only search decrypts no body.
    public func search(_ query: String, titlesOnly: Bool = false, filter: NoteFilter = NoteFilter()) throws(VaultError)
        -> [NoteSummary]
    {
        let scope = SearchScope(titlesOnly: titlesOnly, filter: filter)
        let matcher = TextMatcher(query)
        let workers = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 8))
        let found = try read { db, keys, manifest in
            let hasher = TallyHasher(key: keys.tallyKey)
            var tally = NoteSetTally()
            var found: [NoteSummary] = []
            var batch: [SealedNoteRow] = []
            batch.reserveCapacity(Self.searchBatchSize)
            func flush() throws {
                let outcomes = SearchOutcomes(count: batch.count)
                let rows = batch
                let chunk = (rows.count + workers - 1) / workers
                DispatchQueue.concurrentPerform(iterations: workers) { worker in
                    let start = worker * chunk
                    let end = min(start + chunk, rows.count)
                    guard start < end else { return }
                    for index in start..<end { outcomes.set(index, Self.match(rows[index], keys, hasher, matcher, scope)) }
                }
                for index in 0..<rows.count {
                    switch outcomes.get(index) {
                    case .failure(let error): throw error
                    case .success(let outcome):
                        try tally.add(id: rows[index].id, outcome.element)
                        if let summary = outcome.match { found.append(summary) }
                    }
                }
                batch.removeAll(keepingCapacity: true)
            }
            let cursor = try Row.fetchCursor(
                db, sql: "SELECT n.id, n.revision, n.header, b.body FROM notes n LEFT JOIN note_bodies b ON b.note = n.seq")
            while let row = try cursor.next() {
                guard let id = row.text(0) else { throw VaultError.tampered("note table") }
                batch.append(
                    SealedNoteRow(
                        id: id, revision: try Self.revision(row[1], part: "note \(id)"), header: row.blob(2),
                        body: row.blob(3)))
                if batch.count == Self.searchBatchSize { try flush() }
            }
            try flush()
            try tally.verify(against: manifest)
            return found
        }
        return NoteSummary.sortedForListing(found)
    }

    static let searchBatchSize = 4096

    private static func match(
        _ row: SealedNoteRow, _ keys: KeyHierarchy, _ hasher: TallyHasher, _ matcher: TextMatcher, _ scope: SearchScope
    ) -> Result<SearchOutcome, VaultError> {
        do throws(VaultError) {
            let summary = try NoteSealing.openHeader(row.header, keys: keys, id: row.id, revision: row.revision)
            let element = hasher.note(row.id, revision: row.revision)
            // Every body is authenticated, matched or not, as before filters existed: a search is
            // also a check of the whole set. A title-only search reads headers only, like `list`.
            let body: Data? =
                try scope.titlesOnly ? nil : NoteSealing.openBody(row.body, keys: keys, id: row.id, revision: row.revision)
            guard scope.filter.keepsAll || scope.filter.admits(summary) else {
                return .success(SearchOutcome(element: element, match: nil))
            }
            let hit = matcher.matches(summary.title)
                || body.map { summary.tags.contains(where: matcher.matches) || matcher.matches(utf8: $0) } == true
            return .success(SearchOutcome(element: element, match: hit ? summary : nil))
        } catch {
            return .failure(error)
        }
    }
}

/// What a search looks at besides the query.
struct SearchScope: Sendable {
    var titlesOnly: Bool
    var filter: NoteFilter
}

/// One note row as read from the database, still sealed.
struct SealedNoteRow: Sendable {
    var id: String
    var revision: UInt64
    var header: Data?
    var body: Data?
}

struct SearchOutcome: Sendable {
    var element: Tally.Element
    var match: NoteSummary?
}

/// Per-row results written by the search workers. @unchecked Sendable: each index is written by
/// exactly one worker (the batch is split into disjoint ranges) and read only after
/// `concurrentPerform` has returned, which orders every write before every read.
final class SearchOutcomes: @unchecked Sendable {
    private let slots: UnsafeMutableBufferPointer<Result<SearchOutcome, VaultError>?>

    init(count: Int) {
        slots = .allocate(capacity: count)
        slots.initialize(repeating: nil)
    }

    func set(_ index: Int, _ value: Result<SearchOutcome, VaultError>) { slots[index] = value }

    func get(_ index: Int) -> Result<SearchOutcome, VaultError> {
        slots[index] ?? .failure(VaultError(.io, "Search lost a result."))
    }

    deinit {
        slots.deinitialize()
        slots.deallocate()
    }
}
