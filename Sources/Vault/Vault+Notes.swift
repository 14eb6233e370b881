public import Foundation
import GRDB

extension Vault {
    /// The number of notes, from the sealed manifest (no scan).
    public func noteCount() throws(VaultError) -> Int {
        try read { _, _, manifest in Int(manifest.notes.count) }
    }

    /// Adds a note stamped with the configured clock.
    @discardableResult
    public func add(title: String, body: String, tags: [String] = []) throws(VaultError) -> Note {
        let stamp = now()
        let note = Note(title: title, body: body, tags: tags, created: stamp, modified: stamp)
        try add([note])
        return note
    }

    /// Adds whole notes (ids and dates as given) in one transaction: imports, restores from an
    /// export, benchmarks. Fails with `.alreadyExists`, adding nothing, if an id is taken (by a
    /// note or by one in the trash). `progress` hears how many are sealed so far.
    public func add(_ notes: [Note], progress: ((Int) -> Void)? = nil) throws(VaultError) {
        try importNotes(adding: notes, replacing: [], progress: progress)
    }

    /// An import that updates (`notes import` of a pass store again): adds `new` notes as `add(_:)`
    /// does and writes each of `changed` as the next revision of the note it was `read` from (the
    /// version it replaces joins the history), all in one transaction: a note another process
    /// changed since it was read stops the whole import with `.busy`, nothing written. `progress`
    /// hears how many are written so far.
    public func importNotes(
        adding new: [Note], replacing changed: [(read: Note, with: Note)], progress: ((Int) -> Void)? = nil
    ) throws(VaultError) {
        let cutoff = trashCutoff()
        let (stamp, kept) = (now(), retention.revisionsKept)
        try write { db, keys, manifest in
            try Self.purgeTrash(before: cutoff, db, keys, &manifest)
            let hasher = TallyHasher(key: keys.tallyKey)
            let insertNote = try db.makeStatement(sql: "INSERT INTO notes (id, revision, header) VALUES (?, ?, ?)")
            let insertBody = try db.makeStatement(sql: "INSERT INTO note_bodies (note, body) VALUES (?, ?)")
            var written = 0
            for note in new {
                let id = note.id.storageKey
                if try Bool.fetchOne(db, sql: "SELECT 1 FROM notes WHERE id = ?", arguments: [id]) == true {
                    throw VaultError(.alreadyExists, "A note with id \(id) already exists.")
                }
                if try Bool.fetchOne(db, sql: "SELECT 1 FROM note_trash WHERE id = ?", arguments: [id]) == true {
                    throw VaultError(.alreadyExists, "A note with id \(id) is in the trash; restore it or empty the trash first.")
                }
                try insertNote.execute(arguments: [id, 1, try NoteSealing.sealHeader(note, keys: keys, revision: 1)])
                try insertBody.execute(arguments: [
                    db.lastInsertedRowID, try NoteSealing.sealBody(note, keys: keys, revision: 1),
                ])
                manifest.addNote(NoteBucket(note.id), hasher.note(id, revision: 1))
                written += 1
                progress?(written)
            }
            for (read, replacement) in changed {
                let stored = try Self.storedNote(id: read.id, db, keys, manifest, withBody: true)
                guard stored.note == read else {
                    throw VaultError(.busy, "A note changed while the import ran; nothing was imported: run it again.")
                }
                var next = replacement
                next.id = read.id
                _ = try Self.store(next, over: stored, modified: stamp, keeping: kept, db, keys, &manifest)
                written += 1
                progress?(written)
            }
        }
    }

    /// Replaces a note's title, body and tags; keeps its id and creation date, stamps `modified`.
    /// The stored revision is checked against the manifest first, so a rolled-back note is never
    /// built upon. Whatever another process saved since `note` was read is replaced: to change a
    /// note in place, use `update(id:_:)`.
    @discardableResult
    public func update(_ note: Note) throws(VaultError) -> Note {
        let stamp = now()
        let (kept, cutoff) = (retention.revisionsKept, trashCutoff())
        return try write { db, keys, manifest in
            try Self.purgeTrash(before: cutoff, db, keys, &manifest)
            let stored = try Self.storedNote(id: note.id, db, keys, manifest, withBody: false)
            return try Self.store(note, over: stored, modified: stamp, keeping: kept, db, keys, &manifest)
        }
    }

    /// Reads the note as stored now, lets `change` edit it, and saves the result, all in one write
    /// transaction under the vault lock: what another process saved between a command's first read
    /// and its write is built upon, never lost. Returns the saved note, or nil when `change` left it
    /// as it was (nothing is written and `modified` stays). An error `change` throws ends it with
    /// nothing written and is passed on as it is.
    @discardableResult
    public func update<E: Error>(id noteID: UUID, _ change: (inout Note) throws(E) -> Void) throws -> Note? {
        let stamp = now()
        let (kept, cutoff) = (retention.revisionsKept, trashCutoff())
        var refusal: E?
        let saved: Note? = try write { db, keys, manifest in
            try Self.purgeTrash(before: cutoff, db, keys, &manifest)
            let stored = try Self.storedNote(id: noteID, db, keys, manifest, withBody: true)
            var note = stored.note
            do throws(E) {
                try change(&note)
            } catch {
                refusal = error
                return nil
            }
            guard note != stored.note else { return nil }
            return try Self.store(note, over: stored, modified: stamp, keeping: kept, db, keys, &manifest)
        }
        if let refusal { throw refusal }
        return saved
    }

    /// A note's row as stored, authenticated and checked against the manifest.
    struct StoredNote {
        let seq: Int64
        let revision: UInt64
        /// The note; its body is empty unless it was asked for.
        let note: Note
    }

    static func storedNote(
        id noteID: UUID, _ db: Database, _ keys: KeyHierarchy, _ manifest: Manifest, withBody: Bool
    ) throws -> StoredNote {
        let id = noteID.storageKey
        try verifyNotes(in: NoteBucket(noteID), db, keys, manifest)
        guard
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT n.seq, n.revision, n.header, \(withBody ? "b.body" : "NULL") FROM notes n
                    LEFT JOIN note_bodies b ON b.note = n.seq WHERE n.id = ?
                    """, arguments: [id])
        else { throw VaultError.notFound("Note \(id)") }
        guard let seq = row.integer(0) else { throw VaultError.tampered("note \(id)") }
        let revision = try revision(row[1], part: "note \(id)")
        let summary = try NoteSealing.openHeader(row.blob(2), keys: keys, id: id, revision: revision)
        let body =
            withBody ? try NoteSealing.bodyString(NoteSealing.openBody(row.blob(3), keys: keys, id: id, revision: revision), id: id) : ""
        return StoredNote(seq: seq, revision: revision, note: Note(summary, body: body))
    }

    /// Writes `note` as the next revision of `stored`, keeping its creation date; the version it
    /// replaces joins the note's history, of which the newest `kept` revisions stay.
    static func store(
        _ note: Note, over stored: StoredNote, modified: Date, keeping kept: Int, _ db: Database, _ keys: KeyHierarchy,
        _ manifest: inout Manifest
    ) throws -> Note {
        let id = note.id.storageKey
        try keepRevision(of: note.id, seq: stored.seq, revision: stored.revision, keeping: kept, db, keys, &manifest)
        var updated = note
        updated.created = stored.note.created
        updated.modified = modified
        let next = stored.revision + 1
        try db.execute(
            sql: "UPDATE notes SET revision = ?, header = ? WHERE seq = ?",
            arguments: [next, try NoteSealing.sealHeader(updated, keys: keys, revision: next), stored.seq])
        try db.execute(
            sql: "INSERT OR REPLACE INTO note_bodies (note, body) VALUES (?, ?)",
            arguments: [stored.seq, try NoteSealing.sealBody(updated, keys: keys, revision: next)])
        let hasher = TallyHasher(key: keys.tallyKey)
        let bucket = NoteBucket(note.id)
        manifest.removeNote(bucket, hasher.note(id, revision: stored.revision))
        manifest.addNote(bucket, hasher.note(id, revision: next))
        return updated
    }

    /// Deletes a note for good, with its history (`trashNotes` keeps it restorable); `.notFound` if
    /// there is none with this id. Like `note(id:)`, checks the stored revision against the manifest first.
    public func deleteNote(id noteID: UUID) throws(VaultError) {
        try deleteNotes([noteID])
    }

    /// Deletes notes for good, with their history, all or none (see `deleteNote(id:)`).
    public func deleteNotes(_ noteIDs: [UUID]) throws(VaultError) {
        try write { db, keys, manifest in
            for noteID in Set(noteIDs) {
                let stored = try Self.storedNote(id: noteID, db, keys, manifest, withBody: false)
                try db.execute(sql: "DELETE FROM notes WHERE seq = ?", arguments: [stored.seq])
                try db.execute(sql: "DELETE FROM note_bodies WHERE note = ?", arguments: [stored.seq])
                manifest.removeNote(
                    NoteBucket(noteID), TallyHasher(key: keys.tallyKey).note(noteID.storageKey, revision: stored.revision))
                try Self.deleteRevisions(of: noteID, db, keys, &manifest)
            }
        }
    }

    /// One note, decrypted and authenticated (bound to its id and revision), its revision checked
    /// against the manifest through its bucket's tally: a rolled-back or deleted row in the bucket
    /// is `.tampered` here, not only at the next listing.
    public func note(id noteID: UUID) throws(VaultError) -> Note {
        try read { db, keys, manifest in
            let id = noteID.storageKey
            try Self.verifyNotes(in: NoteBucket(noteID), db, keys, manifest)
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT n.revision, n.header, b.body FROM notes n
                        LEFT JOIN note_bodies b ON b.note = n.seq WHERE n.id = ?
                        """, arguments: [id])
            else { throw VaultError.notFound("Note \(id)") }
            let revision = try Self.revision(row[0], part: "note \(id)")
            let summary = try NoteSealing.openHeader(row.blob(1), keys: keys, id: id, revision: revision)
            let body = try NoteSealing.openBody(row.blob(2), keys: keys, id: id, revision: revision)
            return Note(summary, body: try NoteSealing.bodyString(body, id: id))
        }
    }

    /// Ids starting with `prefix` (hex digits and dashes, any case), at most `limit` of them.
    public func noteIDs(matchingPrefix prefix: String, limit: Int = 10) throws(VaultError) -> [UUID] {
        try Self.checkNoteIDPrefix(prefix)
        let lowered = prefix.lowercased()
        return try read { db, _, _ in
            // Ids are lowercase hex and dashes, all below "g": this range is exactly the prefix.
            try Row.fetchAll(
                db, sql: "SELECT id FROM notes WHERE id >= ? AND id < ? ORDER BY id LIMIT ?",
                arguments: [lowered, lowered + "g", max(limit, 1)]
            ).compactMap { $0.text(0).flatMap(UUID.init(uuidString:)) }
        }
    }

    /// Whether `prefix` can start a note id (hex digits and dashes, at most 36): checkable before
    /// the vault is opened.
    public static func checkNoteIDPrefix(_ prefix: String) throws(VaultError) {
        guard !prefix.isEmpty, prefix.count <= 36, prefix.allSatisfy({ $0.isHexDigit || $0 == "-" }) else {
            throw VaultError(.invalidInput, "\"\(prefix)\" is not a note id or the start of one.")
        }
    }

    /// The one note id that starts with `prefix`: `.notFound` if none, `.ambiguous` if several.
    public func resolveNoteID(_ prefix: String) throws(VaultError) -> UUID {
        let matches = try noteIDs(matchingPrefix: prefix, limit: 2)
        switch matches.count {
        case 0:
            // Removed a moment ago is the likeliest reason a known id is not found.
            if try !trashedNoteIDs(matchingPrefix: prefix, limit: 1).isEmpty {
                throw VaultError(.notFound, "Note \(prefix) is in the trash.")
            }
            throw VaultError.notFound("Note \(prefix)")
        case 1: return matches[0]
        default:
            throw VaultError(.ambiguous, "\"\(prefix)\" matches more than one note; type more of the id.")
        }
    }

    /// Every note's title, tags and dates, newest change first, optionally only those with `tag`
    /// (case-insensitive).
    public func list(tag: String?) throws(VaultError) -> [NoteSummary] {
        try list(NoteFilter(tags: tag.map { [$0] } ?? []))
    }

    /// Every note's title, tags and dates that `filter` keeps, newest change first; with `limit`
    /// only the newest that many (none for 0), in memory that does not grow with the vault. Reads the
    /// whole set, so a deleted or rolled-back note is reported as tampering. Bodies are not read:
    /// headers are opened on all cores (see `scanNotes`).
    public func list(_ filter: NoteFilter = NoteFilter(), limit: Int? = nil) throws(VaultError) -> [NoteSummary] {
        var listing = NoteListing(limit: limit)
        try scanNotes(
            bodies: false,
            { row, keys -> Result<NoteSummary?, VaultError> in
                do throws(VaultError) {
                    let summary = try NoteSealing.openHeader(row.header, keys: keys, id: row.id, revision: row.revision)
                    return .success(filter.keepsAll || filter.admits(summary) ? summary : nil)
                } catch {
                    return .failure(error)
                }
            }, keep: { listing.add(contentsOf: $0) })
        return listing.finish()
    }

    /// Every note in full, oldest first (for export). Reads and verifies the whole set; `progress`
    /// hears how many are read so far.
    public func allNotes(progress: ((Int) -> Void)? = nil) throws(VaultError) -> [Note] {
        var notes: [Note] = []
        try scanAll { summary, body in
            notes.append(Note(summary, body: try NoteSealing.bodyString(body, id: summary.id.storageKey)))
            progress?(notes.count)
        }
        notes.sort { ($0.created, $0.id.uuidString) < ($1.created, $1.id.uuidString) }
        return notes
    }

    /// Streams every note (header and decrypted body bytes) and checks the set against the manifest.
    func scanAll(_ visit: (NoteSummary, Data) throws -> Void) throws(VaultError) {
        try read { db, keys, manifest in
            let hasher = TallyHasher(key: keys.tallyKey)
            var tally = NoteSetTally()
            let rows = try Row.fetchCursor(
                db, sql: "SELECT n.id, n.revision, n.header, b.body FROM notes n LEFT JOIN note_bodies b ON b.note = n.seq")
            while let row = try rows.next() {
                guard let id = row.text(0) else { throw VaultError.tampered("note table") }
                let revision = try Self.revision(row[1], part: "note \(id)")
                let summary = try row.withUnsafeData(atIndex: 2) { header in
                    try NoteSealing.openHeader(header, keys: keys, id: id, revision: revision)
                }
                let body = try row.withUnsafeData(atIndex: 3) { sealed in
                    try NoteSealing.openBody(sealed, keys: keys, id: id, revision: revision)
                }
                try tally.add(id: id, hasher.note(id, revision: revision))
                try visit(summary, body)
            }
            try tally.verify(against: manifest)
        }
    }

    /// A stored revision: a positive integer, anything else is tampering with `part`.
    static func revision(_ value: DatabaseValue, part: String) throws(VaultError) -> UInt64 {
        guard case .int64(let number) = value.storage, number > 0 else { throw .tampered(part) }
        return UInt64(number)
    }
}

extension Note {
    init(_ summary: NoteSummary, body: String) {
        self.init(
            id: summary.id, title: summary.title, body: body, tags: summary.tags, created: summary.created,
            modified: summary.modified)
    }
}
