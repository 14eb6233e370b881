public import Foundation
import GRDB

/// Earlier revisions of notes (issue 28). An edit moves the version it replaces, still sealed as it
/// was (bound to the note id and its revision number), into `note_revisions`; the manifest counts
/// every kept revision overall and by the note's bucket, so a revision row deleted, put back or
/// moved from the note table is tampering, as for notes.
extension Vault {
    /// The earlier revisions of note `id`, newest first, with its current revision number.
    public func history(of noteID: UUID) throws(VaultError) -> NoteHistory {
        try read { db, keys, manifest in
            let stored = try Self.storedNote(id: noteID, db, keys, manifest, withBody: false)
            try Self.verifyRevisions(in: NoteBucket(noteID), db, keys, manifest)
            let id = noteID.storageKey
            let rows = try Row.fetchAll(
                db, sql: "SELECT revision, header, body FROM note_revisions WHERE id = ? ORDER BY revision DESC",
                arguments: [id])
            let revisions = try rows.map { row in
                let number = try Self.revision(row[0], part: "revision of note \(id)")
                let summary = try Self.openRevisionHeader(row.blob(1), id: id, number: number, keys)
                let size = try NoteSealing.withOpenedBody(row.blob(2), keys: keys, id: id, revision: number) { $0.count }
                return NoteRevision(number: number, title: summary.title, tags: summary.tags, modified: summary.modified, size: size)
            }
            return NoteHistory(id: noteID, current: stored.revision, revisions: revisions)
        }
    }

    /// Every earlier revision kept, by note: what a restore brings back or drops (no header or
    /// body is opened; a restore has checked the whole backup first).
    public func keptRevisionNumbers() throws(VaultError) -> [UUID: Set<UInt64>] {
        try read { db, _, _ in
            var numbers: [UUID: Set<UInt64>] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT id, revision FROM note_revisions") {
                guard let id = row.text(0).flatMap(UUID.init(uuidString:)) else {
                    throw VaultError(.corrupt, "A kept revision has no valid note id.")
                }
                numbers[id, default: []].insert(try Self.revision(row[1], part: "revision of note \(id.storageKey)"))
            }
            return numbers
        }
    }

    /// Revision `number` of note `id` in full, as it was saved. `.notFound` when it is not kept
    /// (pruned, never one, or the current revision: read that with `note(id:)`).
    public func revision(_ number: UInt64, of noteID: UUID) throws(VaultError) -> Note {
        try read { db, keys, manifest in
            _ = try Self.storedNote(id: noteID, db, keys, manifest, withBody: false)
            return try Self.keptRevision(number, of: noteID, db, keys, manifest)
        }
    }

    /// Makes revision `number` the note's content again (title, body, tags; its creation date
    /// stays), as a new revision: the current version joins the history first, so nothing is lost.
    @discardableResult
    public func restoreRevision(_ number: UInt64, of noteID: UUID) throws(VaultError) -> Note {
        let stamp = now()
        let (kept, cutoff) = (retention.revisionsKept, trashCutoff())
        return try write { db, keys, manifest in
            let stored = try Self.storedNote(id: noteID, db, keys, manifest, withBody: false)
            let old = try Self.keptRevision(number, of: noteID, db, keys, manifest)
            var note = stored.note
            (note.title, note.body, note.tags) = (old.title, old.body, old.tags)
            // Purged after reading: the revision asked for is never pruned from under the restore.
            try Self.purgeTrash(before: cutoff, db, keys, &manifest)
            return try Self.store(note, over: stored, modified: stamp, keeping: max(kept, 1), db, keys, &manifest)
        }
    }

    private static func keptRevision(
        _ number: UInt64, of noteID: UUID, _ db: Database, _ keys: KeyHierarchy, _ manifest: Manifest
    ) throws -> Note {
        let id = noteID.storageKey
        try verifyRevisions(in: NoteBucket(noteID), db, keys, manifest)
        guard number <= UInt64(Int64.max),
            let row = try Row.fetchOne(
                db, sql: "SELECT header, body FROM note_revisions WHERE id = ? AND revision = ?",
                arguments: [id, Int64(number)])
        else {
            throw VaultError(
                .notFound, "Note \(String(id.prefix(8))) keeps no revision \(number) (see `notes history`): it was pruned or never existed.")
        }
        let summary = try openRevisionHeader(row.blob(0), id: id, number: number, keys)
        let body = try NoteSealing.openBody(row.blob(1), keys: keys, id: id, revision: number)
        return Note(summary, body: try NoteSealing.bodyString(body, id: id))
    }

    private static func openRevisionHeader(_ sealed: Data?, id: String, number: UInt64, _ keys: KeyHierarchy) throws(VaultError)
        -> NoteSummary
    {
        try NoteSealing.openHeader(sealed, keys: keys, id: id, revision: number)
    }

    /// Moves the note row `seq` (revision `revision`) into the history as it is sealed, then drops
    /// the note's oldest revisions beyond the newest `kept`.
    static func keepRevision(
        of noteID: UUID, seq: Int64, revision: UInt64, keeping kept: Int, _ db: Database, _ keys: KeyHierarchy,
        _ manifest: inout Manifest
    ) throws {
        let id = noteID.storageKey
        let bucket = NoteBucket(noteID)
        let hasher = TallyHasher(key: keys.tallyKey)
        if kept > 0 {
            // Numbers only grow, so a row already there was put there behind our back.
            if try Bool.fetchOne(
                db, sql: "SELECT 1 FROM note_revisions WHERE id = ? AND revision = ?", arguments: [id, Int64(revision)]) == true
            {
                throw VaultError.tampered("revisions of note \(id)")
            }
            try db.execute(
                sql: """
                    INSERT INTO note_revisions (id, revision, header, body)
                    SELECT n.id, n.revision, n.header, b.body FROM notes n JOIN note_bodies b ON b.note = n.seq WHERE n.seq = ?
                    """, arguments: [seq])
            manifest.addRevision(bucket, hasher.revision(id, number: revision))
        }
        let numbers = try Row.fetchAll(
            db, sql: "SELECT revision FROM note_revisions WHERE id = ? ORDER BY revision DESC", arguments: [id])
        for row in numbers.dropFirst(kept) {
            let number = try Self.revision(row[0], part: "revision of note \(id)")
            try db.execute(
                sql: "DELETE FROM note_revisions WHERE id = ? AND revision = ?", arguments: [id, Int64(number)])
            manifest.removeRevision(bucket, hasher.revision(id, number: number))
        }
    }

    /// Deletes every kept revision of note `id` (the note is gone for good).
    static func deleteRevisions(of noteID: UUID, _ db: Database, _ keys: KeyHierarchy, _ manifest: inout Manifest) throws {
        let id = noteID.storageKey
        let bucket = NoteBucket(noteID)
        let hasher = TallyHasher(key: keys.tallyKey)
        for row in try Row.fetchAll(db, sql: "SELECT revision FROM note_revisions WHERE id = ?", arguments: [id]) {
            manifest.removeRevision(bucket, hasher.revision(id, number: try Self.revision(row[0], part: "revision of note \(id)")))
        }
        try db.execute(sql: "DELETE FROM note_revisions WHERE id = ?", arguments: [id])
    }

    /// Checks the (id, number) pairs of the revisions in `bucket` against the manifest: a revision
    /// deleted, added or put back from elsewhere in this bucket is `.tampered("revision set")`.
    static func verifyRevisions(in bucket: NoteBucket, _ db: Database, _ keys: KeyHierarchy, _ manifest: Manifest) throws {
        let hasher = TallyHasher(key: keys.tallyKey)
        var tally = Tally()
        let rows = try Row.fetchCursor(
            db, sql: "SELECT id, revision FROM note_revisions WHERE id >= ? AND id < ?",
            arguments: [bucket.lowerBound, bucket.upperBound])
        while let row = try rows.next() {
            guard let id = row.text(0), NoteBucket(storedID: id) == bucket else { throw VaultError.tampered("revision set") }
            tally.add(hasher.revision(id, number: try revision(row[1], part: "revision of note \(id)")))
        }
        guard tally.matches(manifest.revisionBuckets[bucket.index]) else { throw VaultError.tampered("revision set") }
    }

    /// Opens every kept revision and checks the whole set (and each bucket) against the manifest;
    /// a vault whose schema predates revisions (a backup being staged) has none.
    static func verifyAllRevisions(_ db: Database, _ keys: KeyHierarchy, _ manifest: Manifest) throws {
        guard try db.tableExists("note_revisions") else {
            guard manifest.revisions.count == 0 else { throw VaultError.tampered("revision set") }
            return
        }
        let hasher = TallyHasher(key: keys.tallyKey)
        var total = Tally()
        var buckets = [Tally](repeating: Tally(), count: NoteBucket.count)
        let rows = try Row.fetchCursor(db, sql: "SELECT id, revision, header, body FROM note_revisions")
        while let row = try rows.next() {
            guard let id = row.text(0), let bucket = NoteBucket(storedID: id) else { throw VaultError.tampered("revision set") }
            let number = try revision(row[1], part: "revision of note \(id)")
            _ = try NoteSealing.openHeader(row.blob(2), keys: keys, id: id, revision: number)
            _ = try NoteSealing.openBody(row.blob(3), keys: keys, id: id, revision: number)
            let element = hasher.revision(id, number: number)
            total.add(element)
            buckets[bucket.index].add(element)
        }
        guard total.matches(manifest.revisions), zip(buckets, manifest.revisionBuckets).allSatisfy({ $0.matches($1) })
        else { throw VaultError.tampered("revision set") }
    }
}
