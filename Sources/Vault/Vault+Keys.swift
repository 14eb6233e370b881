import Crypto
import Foundation
import GRDB
import Synchronization

extension Vault {
    /// After a slot is replaced, old WAL frames still hold the previous slot (wrapped under the old
    /// passcode). Checkpointing with TRUNCATE empties the WAL file so they do not linger on disk;
    /// secure_delete has already zeroed the freed pages in the database itself. Best effort: a
    /// reader in another process can hold the checkpoint back, and the next one completes it.
    func forgetOldPages() {
        _ = try? database.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        }
    }

    /// Rotates the store master key: every note, template and setting is re-sealed under a new
    /// SMK, the passcode slot is rewrapped (same passcode, fresh salt and cost), a new recovery key
    /// replaces the old one, and the old slots are destroyed — all in one transaction. Old copies
    /// of the slots, old cached keys and the old recovery key no longer open this vault.
    ///
    /// The passcode is proven through `sealer` (the vault's mode's: a sealer that counts counts it
    /// like any unlock) and the new passcode slot is sealed by it before the transaction; sealing
    /// changes no state a sealer keeps (system mode's: the same per-vault secret, no counter), so the
    /// transaction alone decides which state is whole after a crash — the old slot with the old
    /// notes, or the new slot with the new.
    public func rekey(
        passcode: String, sealer: any PasscodeSlotSealer, cost: KDFCost = .calibrated,
        recoveryKey: RecoveryKey = .generate(), progress: ((_ done: Int, _ total: Int) -> Void)? = nil
    ) throws(VaultError) -> RecoveryKey {
        let current = try unlocked()
        guard sealer.mode == current.mode else { throw VaultError.modeChanged }
        // Held from before the sealer seals the new slot until the vault holds it (see
        // `changePasscode`); a passcode change committed before it is found below.
        let lock = try files.acquireLock(timeout: configuration.lockTimeout)
        defer { withExtendedLifetime(lock) {} }
        let (meta, slots) = try read { db, _, _ in (try MetaRow.read(db), try KeySlot.readAll(db)) }
        // Another process moved the vault since it was opened: nothing to prove against here.
        guard meta.mode == current.mode else { throw VaultError.modeChanged }
        guard let slot = slots.first(where: { $0.name == KeySlot.passcodeName(current.mode) }) else {
            throw .tampered("slot table")
        }
        let master = try slot.unwrap(passcode: passcode, storeID: meta.storeID, sealer: sealer)
        guard KeyHierarchy(master: master, storeID: meta.storeID).matches(keyCheck: current.keys.keyCheck) else {
            throw .tampered("slot table")
        }
        let newKeys = KeyHierarchy(master: KeyHierarchy.randomMaster(), storeID: current.keys.storeID)
        let (passcodeSlot, sealed) = try KeySlot.makePasscode(
            passcode, cost: cost, keys: newKeys, sealer: sealer, authorizedBy: master)
        let newSlots = [passcodeSlot, try guarded { try KeySlot.makeRecovery(recoveryKey, keys: newKeys) }]
        try writeChecked(holding: lock) { db, oldKeys, meta in
            let slotsNow = try KeySlot.readAll(db)
            guard KeySlot.verifyTableMAC(meta.slotMAC, slotsNow, kind: meta.kind, mode: meta.mode, keys: oldKeys) else {
                throw VaultError.tampered("slot table")
            }
            // The passcode was proven against the slots read above; a passcode change committed by
            // another process since then would be silently undone by the slots written below.
            guard slotsNow == slots else {
                throw VaultError(
                    .busy,
                    "The passcode or recovery key was changed by another fingerlock process during the rekey; "
                        + "nothing was rekeyed. Run it again with the current passcode.")
            }
            let oldManifest = try Manifest.open(meta.manifest, with: oldKeys)
            let oldHasher = TallyHasher(key: oldKeys.tallyKey)
            let newHasher = TallyHasher(key: newKeys.tallyKey)
            var seen = Manifest()
            var seenNotes = NoteSetTally()
            var manifest = Manifest()

            // Notes in batches, so a large vault is never held in memory at once.
            var lastSeq: Int64 = 0
            let total = progress == nil ? 0 : try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM notes") ?? 0
            var done = 0
            while true {
                let rows = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT n.seq, n.id, n.revision, n.header, b.body FROM notes n
                        LEFT JOIN note_bodies b ON b.note = n.seq WHERE n.seq > ? ORDER BY n.seq LIMIT 500
                        """, arguments: [lastSeq])
                guard !rows.isEmpty else { break }
                for row in rows {
                    guard let seq = row.integer(0), let id = row.text(1) else { throw VaultError.tampered("note table") }
                    lastSeq = seq
                    let revision = try Self.revision(row[2], part: "note \(id)")
                    guard let header = Data.fromDatabaseValue(row[3]),
                        let plainHeader = Sealer.open(
                            header, key: oldKeys.noteHeaderKey,
                            ad: NoteSealing.headerAD(oldKeys, id: id, revision: revision))
                    else { throw VaultError.tampered("note \(id)") }
                    let plainBody = try NoteSealing.openBody(
                        Data.fromDatabaseValue(row[4]), keys: oldKeys, id: id, revision: revision)
                    try db.execute(
                        sql: "UPDATE notes SET header = ? WHERE seq = ?",
                        arguments: [
                            try Sealer.seal(
                                plainHeader, key: newKeys.noteHeaderKey,
                                ad: NoteSealing.headerAD(newKeys, id: id, revision: revision)), seq,
                        ])
                    try db.execute(
                        sql: "UPDATE note_bodies SET body = ? WHERE note = ?",
                        arguments: [
                            try Sealer.seal(
                                plainBody, key: newKeys.noteBodyKey,
                                ad: NoteSealing.bodyAD(newKeys, id: id, revision: revision)), seq,
                        ])
                    let bucket = try seenNotes.add(id: id, oldHasher.note(id, revision: revision))
                    manifest.addNote(bucket, newHasher.note(id, revision: revision))
                    done += 1
                    progress?(done, total)
                }
            }

            for row in try Row.fetchAll(db, sql: "SELECT reader, finger, revision, sealed FROM templates") {
                guard let reader = row.text(0), let finger = row.text(1) else {
                    throw VaultError.tampered("template table")
                }
                let revision = try Self.revision(row[2], part: "template \(finger) on \(reader)")
                let data = try Self.openTemplate(row[3], keys: oldKeys, reader: reader, finger: finger, revision: revision)
                try db.execute(
                    sql: "UPDATE templates SET sealed = ? WHERE reader = ? AND finger = ?",
                    arguments: [
                        try Sealer.seal(
                            data, key: newKeys.templateKey,
                            ad: newKeys.associatedData(
                                "template", [Array(reader.utf8), Array(finger.utf8)], revision: revision)),
                        reader, finger,
                    ])
                seen.templates.add(oldHasher.template(reader: reader, finger: finger, revision: revision))
                manifest.templates.add(newHasher.template(reader: reader, finger: finger, revision: revision))
            }

            for row in try Row.fetchAll(db, sql: "SELECT key, revision, sealed FROM settings") {
                guard let key = row.text(0) else { throw VaultError.tampered("setting table") }
                let revision = try Self.revision(row[1], part: "setting \(key)")
                let value = try Self.openSetting(row[2], keys: oldKeys, key: key, revision: revision)
                try db.execute(
                    sql: "UPDATE settings SET sealed = ? WHERE key = ?",
                    arguments: [
                        try Sealer.seal(
                            value, key: newKeys.settingKey,
                            ad: newKeys.associatedData("setting", [Array(key.utf8)], revision: revision)),
                        key,
                    ])
                seen.settings.add(oldHasher.setting(key, revision: revision))
                manifest.settings.add(newHasher.setting(key, revision: revision))
            }

            try Self.resealTrashAndHistory(db, from: oldKeys, to: newKeys, checkedAgainst: oldManifest, into: &manifest)

            // Never carry a tampered set over into a freshly keyed vault.
            try seenNotes.verify(against: oldManifest)
            guard seen.templates.matches(oldManifest.templates) else { throw VaultError.tampered("template set") }
            guard seen.settings.matches(oldManifest.settings) else { throw VaultError.tampered("setting set") }

            try KeySlot.replaceAll(newSlots, db)
            try db.execute(
                sql: "UPDATE meta SET key_check = ?, slot_mac = ?, manifest = ? WHERE singleton = 1",
                arguments: [
                    newKeys.keyCheck, KeySlot.tableMAC(newSlots, kind: meta.kind, mode: meta.mode, keys: newKeys),
                    try manifest.sealed(with: newKeys),
                ])
        }
        state.withLock { $0?.keys = newKeys }
        forgetOldPages()
        // The new slot is in the vault: a sealer keeping state per slot may retire the old one.
        sealer.confirm(sealed)
        return recoveryKey
    }

    /// Re-seals the trash and every kept revision under `newKeys` and counts them into `manifest`,
    /// after checking both sets against the old manifest.
    private static func resealTrashAndHistory(
        _ db: Database, from oldKeys: KeyHierarchy, to newKeys: KeyHierarchy, checkedAgainst oldManifest: Manifest,
        into manifest: inout Manifest
    ) throws {
        _ = try trashRows(db, oldKeys, oldManifest, bodies: true)
        try verifyAllRevisions(db, oldKeys, oldManifest)
        let newHasher = TallyHasher(key: newKeys.tallyKey)
        for table in ["note_trash", "note_revisions"] {
            let rows = try Row.fetchAll(db, sql: "SELECT rowid, id, revision, header, body FROM \(table)")
            for row in rows {
                guard let rowid = row.integer(0), let id = row.text(1), let bucket = NoteBucket(storedID: id) else {
                    throw VaultError.tampered(table == "note_trash" ? "trash" : "revision set")
                }
                let revision = try Self.revision(row[2], part: "note \(id)")
                guard let header = row.blob(3),
                    let plainHeader = Sealer.open(
                        header, key: oldKeys.noteHeaderKey, ad: NoteSealing.headerAD(oldKeys, id: id, revision: revision))
                else { throw VaultError.tampered("note \(id)") }
                let plainBody = try NoteSealing.openBody(row.blob(4), keys: oldKeys, id: id, revision: revision)
                try db.execute(
                    sql: "UPDATE \(table) SET header = ?, body = ? WHERE rowid = ?",
                    arguments: [
                        try Sealer.seal(
                            plainHeader, key: newKeys.noteHeaderKey, ad: NoteSealing.headerAD(newKeys, id: id, revision: revision)),
                        try Sealer.seal(plainBody, key: newKeys.noteBodyKey, ad: NoteSealing.bodyAD(newKeys, id: id, revision: revision)),
                        rowid,
                    ])
                if table == "note_trash" {
                    let deleted = try Int64.fetchOne(db, sql: "SELECT deleted FROM note_trash WHERE rowid = ?", arguments: [rowid]) ?? 0
                    manifest.trash.add(newHasher.trash(id, revision: revision, deleted: deleted))
                } else {
                    manifest.addRevision(bucket, newHasher.revision(id, number: revision))
                }
            }
        }
    }

    /// Reads and authenticates everything: the slot table, every note, template and setting, and
    /// each set against the manifest. Throws `.tampered` naming the first bad part.
    /// `progress` hears (notes checked, notes in all).
    public func verifyIntegrity(progress: ((_ done: Int, _ total: Int) -> Void)? = nil) throws(VaultError) {
        try read { db, keys, _ in
            let meta = try MetaRow.read(db)
            guard
                KeySlot.verifyTableMAC(
                    meta.slotMAC, try KeySlot.readAll(db), kind: meta.kind, mode: meta.mode, keys: keys)
            else {
                throw VaultError.tampered("slot table")
            }
        }
        let total = progress == nil ? 0 : try noteCount()
        var done = 0
        try scanAll { _, _ in
            done += 1
            progress?(done, total)
        }
        try verifyTrashAndHistory()
        _ = try templates()
        _ = try settings()
    }
}
