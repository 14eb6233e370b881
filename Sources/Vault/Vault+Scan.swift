import Dispatch
import Foundation
import GRDB

extension Vault {
    /// Reads every note row (id, revision, header, and the body when `bodies`) in one read
    /// transaction and checks the whole set against the manifest, as every full read must: a row
    /// deleted, added or rolled back is `.tampered("note set")`, an unreadable row `.tampered("note …")`.
    ///
    /// This thread only copies rows out of SQLite into batches (`SealedNoteBatch`); everything else
    /// (checking, AEAD, the keyed tally hash, parsing) happens on all cores while it reads the next
    /// batch. Each worker takes a contiguous share of a batch and sums its own share of the tally
    /// (a sum needs no order). `open` returns the row's kept result, or nil when the row is
    /// authentic but not wanted. `keep` is given the kept results on this thread, in row order; the
    /// first failing row in row order is the error thrown, whatever order the workers finished in.
    /// Memory holds two batches of sealed rows and what `keep` keeps, never the whole table: the
    /// caller decides how much of the set it holds (a listing cut to its newest few holds only those).
    func scanNotes<Kept: Sendable>(
        bodies: Bool,
        _ open: @escaping @Sendable (SealedNote, KeyHierarchy) -> Result<Kept?, VaultError>,
        keep: ([Kept]) -> Void
    ) throws(VaultError) {
        let workers = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 8))
        try read { db, keys, manifest in
            let tallies = WorkerSlots<NoteSetTally>(count: workers, initial: NoteSetTally())
            let group = DispatchGroup()
            // Whatever ends this transaction early, no worker outlives it.
            defer { group.wait() }

            // Opens `batch` on all cores in the background; the shares are read after `group.wait()`.
            func launch(_ batch: SealedNoteBatch) -> WorkerSlots<ScanShare<Kept>> {
                let shares = WorkerSlots<ScanShare<Kept>>(count: workers, initial: ScanShare())
                group.enter()
                DispatchQueue.global(qos: .userInitiated).async {
                    let chunk = (batch.count + workers - 1) / workers
                    DispatchQueue.concurrentPerform(iterations: workers) { worker in
                        let range = min(worker * chunk, batch.count)..<min((worker + 1) * chunk, batch.count)
                        guard !range.isEmpty else { return }
                        tallies.update(worker) { tally in
                            shares.set(worker, Self.openShare(batch, range, keys, into: &tally, open))
                        }
                    }
                    group.leave()
                }
                return shares
            }
            func collect(_ shares: WorkerSlots<ScanShare<Kept>>) throws(VaultError) {
                group.wait()
                // Shares are contiguous and in worker order, so the first failure found is the
                // first failing row of the batch; everything before it was kept in order.
                for worker in 0..<workers {
                    let share = shares.take(worker)
                    if !share.kept.isEmpty { keep(share.kept) }
                    if let failure = share.failure { throw failure }
                }
            }

            let sql =
                bodies
                ? "SELECT n.id, n.revision, n.header, b.body FROM notes n LEFT JOIN note_bodies b ON b.note = n.seq"
                : "SELECT id, revision, header FROM notes"
            let statement = try db.makeStatement(sql: sql)
            // GRDB steps the statement (and reports its errors); the columns are read from SQLite
            // directly, without a `DatabaseValue` per column.
            let cursor = try Row.fetchCursor(statement)
            var inFlight: WorkerSlots<ScanShare<Kept>>?
            var batch = SealedNoteBatch(rowCapacity: Self.scanBatchRows, byteCapacity: Self.scanBatchBytes)
            while true {
                let more: Bool
                do {
                    more = try cursor.next() != nil
                } catch {
                    // A read that fails further on (a damaged page) comes after the rows before
                    // it: they are checked first, so the first bad row in row order is reported,
                    // whatever kind of damage it is.
                    if let previous = inFlight { try collect(previous) }
                    if !batch.isEmpty { try collect(launch(batch)) }
                    throw error
                }
                guard more else { break }
                batch.appendCurrentRow(of: statement.sqliteStatement)
                if batch.count == Self.scanBatchRows || batch.byteCount >= Self.scanBatchBytes {
                    if let previous = inFlight { try collect(previous) }
                    inFlight = launch(batch)
                    batch = SealedNoteBatch(rowCapacity: Self.scanBatchRows, byteCapacity: Self.scanBatchBytes)
                }
            }
            if let previous = inFlight { try collect(previous) }
            if !batch.isEmpty { try collect(launch(batch)) }
            var tally = NoteSetTally()
            for worker in 0..<workers { tally.add(tallies.take(worker)) }
            try tally.verify(against: manifest)
        }
    }

    /// One worker's share of a batch: checks and opens rows `range` in order, adds each authentic
    /// row's tally element to `tally`, and stops at the first row that fails.
    private static func openShare<Kept>(
        _ batch: SealedNoteBatch, _ range: Range<Int>, _ keys: KeyHierarchy, into tally: inout NoteSetTally,
        _ open: (SealedNote, KeyHierarchy) -> Result<Kept?, VaultError>
    ) -> ScanShare<Kept> {
        var share = ScanShare<Kept>()
        share.kept.reserveCapacity(range.count)
        let mac = NoteTallyMAC(key: keys.tallyKey)
        batch.forEachRow(in: range) { row in
            // An id that is not text, or not ours, does not name a note: the table was edited.
            guard let id = row.id, let bucket = NoteBucket(storedID: id) else {
                share.failure = .tampered("note table")
                return false
            }
            guard let revision = row.revision else {
                share.failure = NoteSealing.tampered(id)
                return false
            }
            switch open(SealedNote(id: id, revision: revision, header: row.header, body: row.body), keys) {
            case .failure(let error):
                share.failure = error
                return false
            case .success(let kept):
                tally.add(bucket, mac.note(id, revision: revision))
                if let kept { share.kept.append(kept) }
                return true
            }
        }
        return share
    }

    /// Rows per batch: large enough that handing a batch to the workers costs little, small enough
    /// that two batches of sealed rows stay a few MB.
    static let scanBatchRows = 2048
    /// Bytes per batch, for vaults of large notes: a batch is handed over when either is reached.
    static let scanBatchBytes = 4 << 20
}

/// A note row whose id and revision are well formed, still sealed: views into its batch, valid
/// only during the call that is given it. `header` or `body` is nil when NULL (or not a blob).
struct SealedNote {
    /// The stored id's UTF-8 bytes.
    let id: UnsafeRawBufferPointer
    let revision: UInt64
    let header: UnsafeRawBufferPointer?
    let body: UnsafeRawBufferPointer?
}

/// What one scan worker made of its share of a batch: the kept results in row order, and the
/// failure that stopped it, if any.
struct ScanShare<Kept: Sendable>: Sendable {
    var kept: [Kept] = []
    var failure: VaultError?
}
