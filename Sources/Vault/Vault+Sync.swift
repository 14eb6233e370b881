public import Crypto
public import Foundation
import GRDB

/// What sync keeps in the vault (issue 42). The vault stores and never decides: the entries and
/// the device state are opaque bytes that sync hands in, sealed here under a key derived from the
/// store master key and bound to their place; what they mean is sync's business.
///
/// Neither table is counted by the manifest. Put back from an older copy, an entry makes sync see
/// a note as changed or unchanged wrongly for one run; the device state carries the sequences
/// this machine wrote, and sync refuses a state that is behind the remote's record of them.
extension Vault {
    /// Every live note's revision and every sync entry's recorded revision, read without opening
    /// anything: a note whose revision differs from its entry's changed since sync last settled it.
    public func syncLedger() throws(VaultError) -> SyncLedger {
        try read { db, _, _ in
            var ledger = SyncLedger()
            for row in try Row.fetchAll(db, sql: "SELECT id, revision FROM notes") {
                guard let id = row.text(0).flatMap(UUID.init(storageKey:)) else { throw VaultError.tampered("note table") }
                ledger.notes[id] = try Self.revision(row[1], part: "note \(id.storageKey)")
            }
            for row in try Row.fetchAll(db, sql: "SELECT id, revision FROM sync_notes") {
                guard let id = row.text(0).flatMap(UUID.init(storageKey:)) else { throw VaultError.tampered("sync entries") }
                let value: DatabaseValue = row[1]
                ledger.entries[id] = value.isNull ? .some(nil) : try Self.revision(value, part: "sync entry \(id.storageKey)")
            }
            return ledger
        }
    }

    /// Only the notes that changed since sync last settled them, found by SQLite joining the note
    /// table with the entries on their ids (a sync of one change in 10,000 notes reads no more):
    /// each with its revision now, nil when it is gone (deleted or in the trash); and how many notes
    /// are live.
    public func syncChanges() throws(VaultError) -> (changed: [UUID: UInt64?], liveNotes: Int) {
        try read { db, _, manifest in
            var changed: [UUID: UInt64?] = [:]
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT n.id, n.revision FROM notes n LEFT JOIN sync_notes s ON s.id = n.id
                    WHERE s.id IS NULL OR s.revision IS NULL OR s.revision != n.revision
                    UNION ALL
                    SELECT s.id, NULL FROM sync_notes s LEFT JOIN notes n ON n.id = s.id
                    WHERE n.id IS NULL AND s.revision IS NOT NULL
                    """)
            for row in rows {
                guard let id = row.text(0).flatMap(UUID.init(storageKey:)) else { throw VaultError.tampered("note table") }
                let value: DatabaseValue = row[1]
                changed[id] = value.isNull ? .some(nil) : try Self.revision(value, part: "note \(id.storageKey)")
            }
            return (changed, Int(manifest.notes.count))
        }
    }

    /// The revision of each of `ids` that is a live note now (absent ones are left out).
    public func noteRevisions(_ ids: some Collection<UUID>) throws(VaultError) -> [UUID: UInt64] {
        try read { db, _, _ in
            var revisions: [UUID: UInt64] = [:]
            let statement = try db.makeStatement(sql: "SELECT revision FROM notes WHERE id = ?")
            for id in ids {
                guard let value = try DatabaseValue.fetchOne(statement, arguments: [id.storageKey]) else { continue }
                revisions[id] = try Self.revision(value, part: "note \(id.storageKey)")
            }
            return revisions
        }
    }

    /// The sealed entries of `ids` (those that have one), opened.
    public func syncEntries(_ ids: some Collection<UUID>) throws(VaultError) -> [UUID: Data] {
        try read { db, keys, _ in
            var entries: [UUID: Data] = [:]
            let statement = try db.makeStatement(sql: "SELECT revision, sealed FROM sync_notes WHERE id = ?")
            for id in ids {
                guard let row = try Row.fetchOne(statement, arguments: [id.storageKey]) else { continue }
                entries[id] = try Self.openSyncEntry(row, id: id, keys)
            }
            return entries
        }
    }

    /// Every sealed entry, opened (a first sync after a join, a device that continues as a new one).
    public func allSyncEntries() throws(VaultError) -> [UUID: Data] {
        try read { db, keys, _ in
            var entries: [UUID: Data] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT id, revision, sealed FROM sync_notes") {
                guard let id = row.text(0).flatMap(UUID.init(storageKey:)) else { throw VaultError.tampered("sync entries") }
                entries[id] = try Self.openSyncEntry(Row(["revision": row[1], "sealed": row[2]]), id: id, keys)
            }
            return entries
        }
    }

    /// The sync state sync saved last, or nil before `sync init` or a join.
    public func syncState() throws(VaultError) -> Data? {
        try read { db, keys, _ in
            guard let row = try Row.fetchOne(db, sql: "SELECT sealed FROM sync_state WHERE singleton = 1") else { return nil }
            guard let sealed = row.blob(0), let plain = Sealer.open(sealed, key: keys.syncEntryKey, ad: Self.syncStateAD(keys))
            else { throw VaultError.tampered("sync state") }
            return plain
        }
    }

    /// Saves the sync state alone (a push that went through, a device renamed).
    public func setSyncState(_ state: Data) throws(VaultError) {
        try writeChecked { db, keys, _ in try Self.storeSyncState(state, db, keys) }
    }

    /// Notes `ids` in full as they are now (absent ones are left out), each checked against the manifest.
    public func notes(ids: some Collection<UUID>) throws(VaultError) -> [UUID: Note] {
        try read { db, keys, manifest in
            var notes: [UUID: Note] = [:]
            for id in ids {
                guard try Bool.fetchOne(db, sql: "SELECT 1 FROM notes WHERE id = ?", arguments: [id.storageKey]) == true
                else { continue }
                notes[id] = try Self.storedNote(id: id, db, keys, manifest, withBody: true).note
            }
            return notes
        }
    }

    /// Applies what a sync decided, all in one write transaction: the notes it writes (as given,
    /// dates included, each a new revision whose predecessor joins the history), the notes it moves
    /// to the trash (restorable, as after `notes rm`), the entries and the device state. A note
    /// whose revision is no longer what `write.expected` says (another process changed it since
    /// sync read it) stops the whole write with `.busy`, nothing written.
    public func applySync(_ write: SyncWrite) throws(VaultError) {
        let stamp = Int64(now().timeIntervalSince1970.rounded(.down))
        let (kept, cutoff) = (retention.revisionsKept, trashCutoff())
        try self.write { db, keys, manifest in
            try Self.purgeTrash(before: cutoff, db, keys, &manifest)
            for (id, expected) in write.expected {
                let now = try Int64.fetchOne(db, sql: "SELECT revision FROM notes WHERE id = ?", arguments: [id.storageKey])
                guard now.map(UInt64.init) == expected else {
                    throw VaultError(.busy, "A note changed while sync ran; nothing was applied: run sync again.")
                }
            }
            for note in write.put {
                try Self.putSyncedNote(note, keeping: kept, db, keys, &manifest)
            }
            for id in write.trash {
                let stored = try Self.storedNote(id: id, db, keys, manifest, withBody: false)
                try Self.moveToTrash(stored, id: id, stamp: stamp, db, keys, &manifest)
            }
            let insert = try db.makeStatement(sql: "INSERT OR REPLACE INTO sync_notes (id, revision, sealed) VALUES (?, ?, ?)")
            for (id, entry) in write.entries {
                let revision = try Int64.fetchOne(db, sql: "SELECT revision FROM notes WHERE id = ?", arguments: [id.storageKey])
                let sealed = try Sealer.seal(
                    entry, key: keys.syncEntryKey, ad: Self.syncEntryAD(keys, id: id, revision: revision.map(UInt64.init)))
                try insert.execute(arguments: [id.storageKey, revision, sealed])
            }
            for id in write.removedEntries {
                try db.execute(sql: "DELETE FROM sync_notes WHERE id = ?", arguments: [id.storageKey])
            }
            if let state = write.state { try Self.storeSyncState(state, db, keys) }
        }
    }

    /// Forgets everything sync kept (`sync leave`): entries and device state; the notes stay.
    public func forgetSync() throws(VaultError) {
        try writeChecked { db, _, _ in
            try db.execute(sql: "DELETE FROM sync_notes")
            try db.execute(sql: "DELETE FROM sync_state")
        }
    }

    /// The key change records are sealed with; the same on every machine of this vault.
    public func syncRecordKey() throws(VaultError) -> SymmetricKey {
        try unlocked().keys.syncRecordKey
    }

    // MARK: - Storage

    /// Writes a note as sync merged it: over the live note as its next revision, back from the
    /// trash (the trashed version joins the history) or as a new note.
    private static func putSyncedNote(
        _ note: Note, keeping kept: Int, _ db: Database, _ keys: KeyHierarchy, _ manifest: inout Manifest
    ) throws {
        let id = note.id.storageKey
        if try Bool.fetchOne(db, sql: "SELECT 1 FROM notes WHERE id = ?", arguments: [id]) != true {
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM note_trash WHERE id = ?", arguments: [id]) == true {
                guard let row = try trashRows(db, keys, manifest).first(where: { $0.summary.id == note.id }) else {
                    throw VaultError.tampered("trash")
                }
                try moveBack(row, db, keys, &manifest)
            } else {
                try db.execute(
                    sql: "INSERT INTO notes (id, revision, header) VALUES (?, ?, ?)",
                    arguments: [id, 1, try NoteSealing.sealHeader(note, keys: keys, revision: 1)])
                try db.execute(
                    sql: "INSERT INTO note_bodies (note, body) VALUES (?, ?)",
                    arguments: [db.lastInsertedRowID, try NoteSealing.sealBody(note, keys: keys, revision: 1)])
                manifest.addNote(NoteBucket(note.id), TallyHasher(key: keys.tallyKey).note(id, revision: 1))
                return
            }
        }
        // The creation date stays the stored one (`store` keeps it): sync compares titles, bodies and tags only.
        let stored = try storedNote(id: note.id, db, keys, manifest, withBody: false)
        _ = try store(note, over: stored, modified: note.modified, keeping: kept, db, keys, &manifest)
    }

    private static func openSyncEntry(_ row: Row, id: UUID, _ keys: KeyHierarchy) throws -> Data {
        let value: DatabaseValue = row["revision"]
        let revision = value.isNull ? nil : try Self.revision(value, part: "sync entry \(id.storageKey)")
        guard let sealed = row["sealed"] as Data?,
            let plain = Sealer.open(sealed, key: keys.syncEntryKey, ad: syncEntryAD(keys, id: id, revision: revision))
        else { throw VaultError.tampered("sync entry \(id.storageKey)") }
        return plain
    }

    private static func storeSyncState(_ state: Data, _ db: Database, _ keys: KeyHierarchy) throws {
        try db.execute(
            sql: "INSERT OR REPLACE INTO sync_state (singleton, sealed) VALUES (1, ?)",
            arguments: [try Sealer.seal(state, key: keys.syncEntryKey, ad: syncStateAD(keys))])
    }

    private static func syncEntryAD(_ keys: KeyHierarchy, id: UUID, revision: UInt64?) -> [UInt8] {
        keys.associatedData("sync-entry", [Array(id.storageKey.utf8)], revision: revision ?? 0)
    }

    private static func syncStateAD(_ keys: KeyHierarchy) -> [UInt8] {
        keys.associatedData("sync-state", [])
    }
}

/// See `Vault.syncLedger()`.
public struct SyncLedger: Sendable, Equatable {
    /// Every live note's revision.
    public var notes: [UUID: UInt64] = [:]
    /// Every sync entry's recorded revision: `.some(nil)` when the note was absent (deleted) then.
    public var entries: [UUID: UInt64?] = [:]

    public init(notes: [UUID: UInt64] = [:], entries: [UUID: UInt64?] = [:]) {
        self.notes = notes
        self.entries = entries
    }
}

/// One sync's writes (see `Vault.applySync(_:)`).
public struct SyncWrite: Sendable {
    /// Each note the write relies on, with its revision when sync read it (nil: absent).
    public var expected: [UUID: UInt64?] = [:]
    /// Notes to write as given (live, trashed or new).
    public var put: [Note] = []
    /// Live notes to move to the trash.
    public var trash: [UUID] = []
    /// Entries to store; each is recorded with its note's revision after this write.
    public var entries: [UUID: Data] = [:]
    public var removedEntries: [UUID] = []
    /// The device state, when it changes.
    public var state: Data?

    public init() {}
}

/// What a machine joining a synced vault takes from the remote: the store id and the master key,
/// opened with the recovery key or a pairing code and handed to `Vault.create(joining:)`. The
/// master key never leaves this module.
public struct VaultJoinKey: Sendable {
    public let storeID: UUID
    let master: SymmetricKey
    /// The remote's recovery slot, which the joined vault keeps as its own: one recovery key opens
    /// every machine's copy (also one that joined with a pairing code and never saw the key).
    let recoverySlot: KeySlot
}

extension Vault {
    /// The recovery slot as it can travel (its parameters and the wrapped master key): the recovery
    /// key's 256 bits make it as hard to open as the key is to guess. No passcode slot ever travels.
    public func sharedRecoverySlot() throws(VaultError) -> Data {
        try read { db, _, _ in
            guard let slot = try KeySlot.readAll(db).first(where: { $0.name == KeySlot.recovery }) else {
                throw VaultError.tampered("slot table")
            }
            var writer = ByteWriter()
            writer.field(slot.parameters)
            writer.field(Array(slot.wrapped))
            return writer.data
        }
    }

    /// Opens a shared recovery slot with the recovery key the user typed.
    public static func joinKey(recoverySlot: Data, storeID: UUID, recoveryKey: RecoveryKey) throws(VaultError) -> VaultJoinKey {
        let slot = try sharedSlot(recoverySlot)
        return VaultJoinKey(storeID: storeID, master: try slot.unwrap(recoveryKey: recoveryKey, storeID: storeID), recoverySlot: slot)
    }

    private static func sharedSlot(_ data: Data) throws(VaultError) -> KeySlot {
        var reader = ByteReader(Array(data))
        guard let parameters = reader.field(), let wrapped = reader.field() else {
            throw VaultError(.corrupt, "The remote's recovery slot is damaged.")
        }
        return KeySlot(name: KeySlot.recovery, parameters: Array(parameters), wrapped: Data(wrapped))
    }

    /// The master key sealed under a pairing secret (high entropy: HKDF, no stretching), for a
    /// pairing that travels through the remote. `label` names the pairing and is bound in.
    public func pairingEnvelope(secret: [UInt8], label: String) throws(VaultError) -> Data {
        let keys = try unlocked().keys
        let master = keys.master.withUnsafeBytes { Array($0) }
        return try guarded {
            try Sealer.seal(
                master, key: Self.pairingKey(secret, storeID: keys.storeID),
                ad: keys.associatedData("pairing", [Array(label.utf8)]))
        }
    }

    /// Opens a pairing envelope: `.wrongRecoveryKey` for a code that does not open it.
    public static func joinKey(pairingEnvelope: Data, storeID: UUID, secret: [UInt8], label: String, recoverySlot: Data)
        throws(VaultError) -> VaultJoinKey
    {
        let ad = KeyHierarchy.associatedData("pairing", storeID: storeID, [Array(label.utf8)])
        guard let plain = Sealer.open(pairingEnvelope, key: pairingKey(secret, storeID: storeID), ad: ad), plain.count == 32 else {
            throw VaultError(.wrongRecoveryKey, "That pairing code does not open the pairing on the remote.")
        }
        return VaultJoinKey(storeID: storeID, master: SymmetricKey(data: plain), recoverySlot: try sharedSlot(recoverySlot))
    }

    private static func pairingKey(_ secret: [UInt8], storeID: UUID) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: secret), salt: storeID.bytes,
            info: Array("fingerlock/vault/v1/pairing".utf8), outputByteCount: 32)
    }
}
