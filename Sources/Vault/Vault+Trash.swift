public import Foundation
import GRDB

/// The trash (issue 28): `notes rm` moves a note's row, still sealed as it was, into `note_trash`
/// with the time it was removed; the manifest counts trashed notes by (id, revision, time), so a
/// trashed note put back in the note table, or dropped from the trash, or re-dated, is tampering.
/// Listings, searches and single reads see only the note table. Trashed notes older than the
/// retention are purged, with their history, by the next note write.
extension Vault {
    /// Moves notes to the trash, all or none, and returns their headers. `.notFound` for an id that
    /// is not a note (the trash is no note either).
    @discardableResult
    public func trashNotes(_ noteIDs: [UUID]) throws(VaultError) -> [NoteSummary] {
        let stamp = Int64(now().timeIntervalSince1970.rounded(.down))
        let cutoff = trashCutoff()
        return try write { db, keys, manifest in
            try Self.purgeTrash(before: cutoff, db, keys, &manifest)
            var moved: [NoteSummary] = []
            for noteID in noteIDs where !moved.contains(where: { $0.id == noteID }) {
                let stored = try Self.storedNote(id: noteID, db, keys, manifest, withBody: false)
                try Self.moveToTrash(stored, id: noteID, stamp: stamp, db, keys, &manifest)
                moved.append(stored.note.summary)
            }
            return moved
        }
    }

    /// The notes in the trash, most recently removed first. Reads and checks the whole trash.
    public func trash() throws(VaultError) -> [TrashedNote] {
        try read { db, keys, manifest in
            try Self.trashRows(db, keys, manifest).map { TrashedNote($0.summary, deleted: $0.deleted) }
                .sorted { ($0.deleted, $0.id.uuidString) > ($1.deleted, $1.id.uuidString) }
        }
    }

    /// The one trashed note whose id starts with `prefix`: `.notFound` if none, `.ambiguous` if several.
    public func resolveTrashedNoteID(_ prefix: String) throws(VaultError) -> UUID {
        try Self.checkNoteIDPrefix(prefix)
        let matches = try trashedNoteIDs(matchingPrefix: prefix, limit: 2)
        switch matches.count {
        case 0: throw VaultError(.notFound, "No note in the trash has an id starting with \(prefix).")
        case 1: return matches[0]
        default: throw VaultError(.ambiguous, "\"\(prefix)\" matches more than one note in the trash; type more of the id.")
        }
    }

    /// Ids in the trash starting with `prefix` (checked by the caller), at most `limit`.
    func trashedNoteIDs(matchingPrefix prefix: String, limit: Int) throws(VaultError) -> [UUID] {
        let lowered = prefix.lowercased()
        return try read { db, _, _ in
            try Row.fetchAll(
                db, sql: "SELECT id FROM note_trash WHERE id >= ? AND id < ? ORDER BY id LIMIT ?",
                arguments: [lowered, lowered + "g", limit]
            ).compactMap { $0.text(0).flatMap(UUID.init(uuidString:)) }
        }
    }

    /// Puts trashed notes back among the notes (as they were, with their history), all or none.
    @discardableResult
    public func restoreFromTrash(_ noteIDs: [UUID]) throws(VaultError) -> [NoteSummary] {
        try write { db, keys, manifest in
            let rows = try Self.trashRows(db, keys, manifest)
            var restored: [NoteSummary] = []
            for noteID in noteIDs where !restored.contains(where: { $0.id == noteID }) {
                guard let row = rows.first(where: { $0.summary.id == noteID }) else {
                    throw VaultError(.notFound, "Note \(noteID.storageKey.prefix(8)) is not in the trash.")
                }
                let id = noteID.storageKey
                if try Bool.fetchOne(db, sql: "SELECT 1 FROM notes WHERE id = ?", arguments: [id]) == true {
                    throw VaultError(.alreadyExists, "A note with id \(id) exists already; it cannot come back from the trash.")
                }
                try Self.moveBack(row, db, keys, &manifest)
                restored.append(row.summary)
            }
            return restored
        }
    }

    /// Moves a live note's row, sealed as it is, into the trash, dated `stamp` (Unix seconds).
    static func moveToTrash(
        _ stored: StoredNote, id noteID: UUID, stamp: Int64, _ db: Database, _ keys: KeyHierarchy, _ manifest: inout Manifest
    ) throws {
        let id = noteID.storageKey
        let hasher = TallyHasher(key: keys.tallyKey)
        try db.execute(
            sql: """
                INSERT INTO note_trash (id, revision, deleted, header, body)
                SELECT n.id, n.revision, ?, n.header, b.body FROM notes n JOIN note_bodies b ON b.note = n.seq
                WHERE n.seq = ?
                """, arguments: [stamp, stored.seq])
        try db.execute(sql: "DELETE FROM notes WHERE seq = ?", arguments: [stored.seq])
        try db.execute(sql: "DELETE FROM note_bodies WHERE note = ?", arguments: [stored.seq])
        manifest.removeNote(NoteBucket(noteID), hasher.note(id, revision: stored.revision))
        manifest.trash.add(hasher.trash(id, revision: stored.revision, deleted: stamp))
    }

    /// Moves a trashed note's row back among the notes, sealed as it is (its id must be free there).
    static func moveBack(_ row: TrashRow, _ db: Database, _ keys: KeyHierarchy, _ manifest: inout Manifest) throws {
        let noteID = row.summary.id
        let id = noteID.storageKey
        let hasher = TallyHasher(key: keys.tallyKey)
        try verifyNotes(in: NoteBucket(noteID), db, keys, manifest)
        try db.execute(
            sql: "INSERT INTO notes (id, revision, header) SELECT id, revision, header FROM note_trash WHERE id = ?",
            arguments: [id])
        try db.execute(
            sql: "INSERT INTO note_bodies (note, body) SELECT ?, body FROM note_trash WHERE id = ?",
            arguments: [db.lastInsertedRowID, id])
        try db.execute(sql: "DELETE FROM note_trash WHERE id = ?", arguments: [id])
        manifest.trash.remove(hasher.trash(id, revision: row.revision, deleted: row.deletedSeconds))
        manifest.addNote(NoteBucket(noteID), hasher.note(id, revision: row.revision))
    }

    /// Deletes trashed notes for good, with their history: all of them, or those removed before
    /// `before`. Returns how many went.
    @discardableResult
    public func emptyTrash(before: Date? = nil) throws(VaultError) -> Int {
        try write { db, keys, manifest in
            let cutoff = before.map { Int64($0.timeIntervalSince1970.rounded(.down)) } ?? Int64.max
            return try Self.purgeTrash(before: cutoff, db, keys, &manifest, checking: true)
        }
    }

    /// The moment before which trashed notes are purged, from the retention.
    func trashCutoff() -> Int64 {
        Int64((now().timeIntervalSince1970 - retention.trashKept).rounded(.down))
    }

    /// Purges the notes trashed before `cutoff` (Unix seconds). Unless `checking`, looks first
    /// whether any is due, so a write with nothing to purge reads no more than that.
    @discardableResult
    static func purgeTrash(
        before cutoff: Int64, _ db: Database, _ keys: KeyHierarchy, _ manifest: inout Manifest, checking: Bool = false
    ) throws -> Int {
        if !checking, try Bool.fetchOne(db, sql: "SELECT 1 FROM note_trash WHERE deleted < ? LIMIT 1", arguments: [cutoff]) != true {
            return 0
        }
        let hasher = TallyHasher(key: keys.tallyKey)
        var purged = 0
        for row in try trashRows(db, keys, manifest) where row.deletedSeconds < cutoff {
            let id = row.summary.id.storageKey
            try db.execute(sql: "DELETE FROM note_trash WHERE id = ?", arguments: [id])
            manifest.trash.remove(hasher.trash(id, revision: row.revision, deleted: row.deletedSeconds))
            try deleteRevisions(of: row.summary.id, db, keys, &manifest)
            purged += 1
        }
        return purged
    }

    struct TrashRow {
        var summary: NoteSummary
        var revision: UInt64
        var deletedSeconds: Int64
        var deleted: Date { Date(timeIntervalSince1970: TimeInterval(deletedSeconds)) }
    }

    /// Every trashed note's header, authenticated, the set checked against the manifest.
    static func trashRows(_ db: Database, _ keys: KeyHierarchy, _ manifest: Manifest, bodies: Bool = false) throws
        -> [TrashRow]
    {
        guard try db.tableExists("note_trash") else {
            guard manifest.trash.count == 0 else { throw VaultError.tampered("trash") }
            return []
        }
        let hasher = TallyHasher(key: keys.tallyKey)
        var tally = Tally()
        var result: [TrashRow] = []
        for row in try Row.fetchAll(db, sql: "SELECT id, revision, deleted, header, body FROM note_trash") {
            let stamp: DatabaseValue = row[2]
            guard let id = row.text(0), case .int64(let deleted) = stamp.storage else { throw VaultError.tampered("trash") }
            let revision = try revision(row[1], part: "note \(id) in the trash")
            let summary = try NoteSealing.openHeader(row.blob(3), keys: keys, id: id, revision: revision)
            if bodies { _ = try NoteSealing.openBody(row.blob(4), keys: keys, id: id, revision: revision) }
            tally.add(hasher.trash(id, revision: revision, deleted: deleted))
            result.append(TrashRow(summary: summary, revision: revision, deletedSeconds: deleted))
        }
        guard tally.matches(manifest.trash) else { throw VaultError.tampered("trash") }
        return result
    }

    /// Checks the trash and every kept revision in full (for `verifyIntegrity`).
    func verifyTrashAndHistory() throws(VaultError) {
        try read { db, keys, manifest in
            _ = try Self.trashRows(db, keys, manifest, bodies: true)
            try Self.verifyAllRevisions(db, keys, manifest)
        }
    }
}
