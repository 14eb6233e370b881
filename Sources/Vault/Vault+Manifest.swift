import GRDB

/// Checks of single-row reads against the sealed manifest. A row's AEAD only proves it was once
/// written by fingerlock under its (id, revision); only the manifest says which revision is current,
/// so every read of one row also checks the (key, revision) pairs of its group against it.
extension Vault {
    /// Checks the (id, revision) pairs of `bucket` against the manifest's bucket tally: an older row
    /// put back, or a row deleted or added, in this bucket is `.tampered("note set")`. Reads only
    /// ids and revisions of about n/256 rows, from the (id, revision) index alone (migration "v2";
    /// a vault not yet upgraded does a table lookup per row). With a version-1 manifest (no buckets
    /// yet) the whole set is checked instead.
    static func verifyNotes(in bucket: NoteBucket, _ db: Database, _ keys: KeyHierarchy, _ manifest: Manifest) throws {
        let hasher = TallyHasher(key: keys.tallyKey)
        guard let expected = manifest.noteBuckets?[bucket.index] else {
            try noteSetTally(db, hasher).verify(against: manifest)
            return
        }
        var tally = Tally()
        let rows = try Row.fetchCursor(
            db, sql: "SELECT id, revision FROM notes WHERE id >= ? AND id < ?",
            arguments: [bucket.lowerBound, bucket.upperBound])
        while let row = try rows.next() {
            // The range also holds ids that are not ours (say "9z…" between "9f" and "a0").
            guard let id = row.text(0), NoteBucket(storedID: id) == bucket else { throw VaultError.tampered("note table") }
            tally.add(hasher.note(id, revision: try revision(row[1], part: "note \(id)")))
        }
        guard tally.matches(expected) else { throw VaultError.tampered("note set") }
    }

    /// The tallies of every note's (id, revision), without reading headers or bodies.
    static func noteSetTally(_ db: Database, _ hasher: TallyHasher) throws -> NoteSetTally {
        var tally = NoteSetTally()
        let rows = try Row.fetchCursor(db, sql: "SELECT id, revision FROM notes")
        while let row = try rows.next() {
            guard let id = row.text(0) else { throw VaultError.tampered("note table") }
            try tally.add(id: id, hasher.note(id, revision: try revision(row[1], part: "note \(id)")))
        }
        return tally
    }

    /// Gives a version-1 manifest its bucket tallies, after checking the whole note set against
    /// its note tally (buckets computed from a tampered set would make the tampering authentic).
    static func upgradeManifest(_ manifest: inout Manifest, _ db: Database, _ keys: KeyHierarchy) throws {
        guard manifest.noteBuckets == nil else { return }
        let tally = try noteSetTally(db, TallyHasher(key: keys.tallyKey))
        try tally.verify(against: manifest)
        manifest.noteBuckets = tally.buckets
    }

    /// Settings are few: every single-setting access checks the whole set's (name, revision) pairs.
    static func verifySettings(_ db: Database, _ keys: KeyHierarchy, _ manifest: Manifest) throws {
        let hasher = TallyHasher(key: keys.tallyKey)
        var tally = Tally()
        for row in try Row.fetchAll(db, sql: "SELECT key, revision FROM settings") {
            guard let key = row.text(0) else { throw VaultError.tampered("setting table") }
            tally.add(hasher.setting(key, revision: try revision(row[1], part: "setting \(key)")))
        }
        guard tally.matches(manifest.settings) else { throw VaultError.tampered("setting set") }
    }

    /// Templates are few too (a handful of fingers per reader): checked as a whole set likewise.
    static func verifyTemplates(_ db: Database, _ keys: KeyHierarchy, _ manifest: Manifest) throws {
        let hasher = TallyHasher(key: keys.tallyKey)
        var tally = Tally()
        for row in try Row.fetchAll(db, sql: "SELECT reader, finger, revision FROM templates") {
            guard let reader = row.text(0), let finger = row.text(1) else { throw VaultError.tampered("template table") }
            let revision = try revision(row[2], part: "template \(finger) on \(reader)")
            tally.add(hasher.template(reader: reader, finger: finger, revision: revision))
        }
        guard tally.matches(manifest.templates) else { throw VaultError.tampered("template set") }
    }
}

extension Vault {
    /// Rewrites the manifest in the version-1 layout that vaults written before per-bucket tallies
    /// hold, so tests can check such vaults still open, read and upgrade. Such vaults kept no trash
    /// and no revisions either: those rows go.
    package func rewriteManifestAsVersion1ForTesting() throws(VaultError) {
        try writeChecked { db, keys, meta in
            var manifest = try Manifest.open(meta.manifest, with: keys)
            manifest.noteBuckets = nil
            try db.execute(sql: "DELETE FROM note_revisions")
            try db.execute(sql: "DELETE FROM note_trash")
            (manifest.trash, manifest.revisions) = (Tally(), Tally())
            manifest.revisionBuckets = Array(repeating: Tally(), count: NoteBucket.count)
            try db.execute(
                sql: "UPDATE meta SET manifest = ? WHERE singleton = 1", arguments: [try manifest.sealed(with: keys)])
        }
    }

    /// The layout version of the stored manifest (1, or 3 once written: 2 is only ever read), for
    /// tests of the upgrade.
    package func manifestVersionForTesting() throws(VaultError) -> Int {
        try read { _, _, manifest in manifest.noteBuckets == nil ? 1 : 3 }
    }
}
