import Dispatch
import Foundation
import GRDB

extension Vault {
    /// Reads every note row (id, revision, header, and the body when `bodies`) in one read
    /// transaction and checks the whole set against the manifest, as every full read must: a row
    /// deleted, added or rolled back is `.tampered("note set")`, an unreadable row `.tampered("note …")`.
    ///
    /// Opening rows is where the time goes (AEAD, the keyed tally hash, parsing), so rows are read
    /// in batches and each batch is opened by `open` on all cores while this thread reads the next
    /// one from SQLite. `open` returns the row's kept result, or nil when the row is authentic but not
    /// wanted. `keep` is given the kept results on this thread, in row order; the first failing row
    /// in row order is the error thrown, whatever order the workers finished in. Memory holds two
    /// batches of sealed rows and what `keep` keeps, never the whole table: the caller decides how
    /// much of the set it holds (a listing cut to its newest few holds only those).
    func scanNotes<Kept: Sendable>(
        bodies: Bool,
        _ open: @escaping @Sendable (SealedNoteRow, KeyHierarchy) -> Result<Kept?, VaultError>,
        keep: (Kept) -> Void
    ) throws(VaultError) {
        let workers = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 8))
        try read { db, keys, manifest in
            var tally = NoteSetTally()
            let group = DispatchGroup()
            // Whatever ends this transaction early, no worker outlives it.
            defer { group.wait() }

            // Opens `rows` on all cores in the background; the outcomes are read after `group.wait()`.
            func launch(_ rows: [SealedNoteRow]) -> ScanOutcomes<Kept> {
                let outcomes = ScanOutcomes<Kept>(count: rows.count)
                group.enter()
                DispatchQueue.global(qos: .userInitiated).async {
                    let chunk = (rows.count + workers - 1) / workers
                    DispatchQueue.concurrentPerform(iterations: workers) { worker in
                        let start = worker * chunk
                        let end = min(start + chunk, rows.count)
                        guard start < end else { return }
                        let mac = NoteTallyMAC(key: keys.tallyKey)
                        for index in start..<end {
                            let row = rows[index]
                            outcomes.set(
                                index,
                                open(row, keys).map { ScanOutcome(element: mac.note(row.id, revision: row.revision), kept: $0) })
                        }
                    }
                    group.leave()
                }
                return outcomes
            }
            func collect(_ rows: [SealedNoteRow], _ outcomes: ScanOutcomes<Kept>) throws {
                group.wait()
                for index in 0..<rows.count {
                    switch outcomes.get(index) {
                    case .failure(let error): throw error
                    case .success(let outcome):
                        try tally.add(id: rows[index].id, outcome.element)
                        if let value = outcome.kept { keep(value) }
                    }
                }
            }

            var inFlight: (rows: [SealedNoteRow], outcomes: ScanOutcomes<Kept>)?
            var batch: [SealedNoteRow] = []
            batch.reserveCapacity(Self.scanBatchSize)
            let sql =
                bodies
                ? "SELECT n.id, n.revision, n.header, b.body FROM notes n LEFT JOIN note_bodies b ON b.note = n.seq"
                : "SELECT id, revision, header FROM notes"
            let cursor = try Row.fetchCursor(db, sql: sql)
            while let row = try cursor.next() {
                guard let id = row.text(0) else { throw VaultError.tampered("note table") }
                batch.append(
                    SealedNoteRow(
                        id: id, revision: try Self.revision(row[1], part: "note \(id)"), header: row.blob(2),
                        body: bodies ? row.blob(3) : nil))
                if batch.count == Self.scanBatchSize {
                    if let previous = inFlight { try collect(previous.rows, previous.outcomes) }
                    inFlight = (batch, launch(batch))
                    batch = []
                    batch.reserveCapacity(Self.scanBatchSize)
                }
            }
            if let previous = inFlight { try collect(previous.rows, previous.outcomes) }
            if !batch.isEmpty { try collect(batch, launch(batch)) }
            try tally.verify(against: manifest)
        }
    }

    /// Rows per batch: large enough that handing a batch to the workers costs little, small enough
    /// that two batches of sealed rows stay a few MB.
    static let scanBatchSize = 2048
}

/// One note row as read from the database, still sealed.
struct SealedNoteRow: Sendable {
    var id: String
    var revision: UInt64
    var header: Data?
    var body: Data?
}

/// A row opened by a scan worker: its manifest tally element and what the caller keeps of it.
struct ScanOutcome<Kept: Sendable>: Sendable {
    var element: Tally.Element
    var kept: Kept?
}

/// Per-row results written by the scan workers. @unchecked Sendable: each index is written by
/// exactly one worker (a batch is split into disjoint ranges) and read only after the batch's
/// `DispatchGroup` has been waited for, which orders every write before every read.
final class ScanOutcomes<Kept: Sendable>: @unchecked Sendable {
    private let slots: UnsafeMutableBufferPointer<Result<ScanOutcome<Kept>, VaultError>?>

    init(count: Int) {
        slots = .allocate(capacity: count)
        slots.initialize(repeating: nil)
    }

    func set(_ index: Int, _ value: Result<ScanOutcome<Kept>, VaultError>) { slots[index] = value }

    func get(_ index: Int) -> Result<ScanOutcome<Kept>, VaultError> {
        slots[index] ?? .failure(VaultError(.io, "A note scan lost a result."))
    }

    deinit {
        slots.deinitialize()
        slots.deallocate()
    }
}
