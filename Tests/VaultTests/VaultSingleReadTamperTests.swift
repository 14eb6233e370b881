import FingerlockTestSupport
import Foundation
import GRDB
import Testing
import Vault

/// Every AEAD-authentic row that is not the current revision must be refused by reads of that one
/// row too, not only by full listings: `notes show`, `notes edit`, `rm`, single settings and
/// templates read one row each.
@Suite("Vault tampering caught by single reads", .timed)
struct VaultSingleReadTamperTests {
    /// A random id whose first byte (its bucket) is `bucket`.
    func id(inBucket bucket: UInt8) -> UUID {
        var bytes = UUID().uuid
        bytes.0 = bucket
        return UUID(uuid: bytes)
    }

    /// The one row `sql` selects, read straight from the file.
    func storedRow(_ dir: String, _ sql: String) throws -> Row {
        let row = try withRawDatabase(dir) { db in try Row.fetchOne(db, sql: sql) }
        return try #require(row)
    }

    func note(_ id: UUID, _ title: String, _ body: String) -> Note {
        Note(id: id, title: title, body: body, created: Date(timeIntervalSince1970: 0), modified: Date(timeIntervalSince1970: 0))
    }

    @Test("an older note row put back is refused by note(id:), update and deleteNote")
    func rolledBackNote() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            let balance = try vault.add(title: "balance", body: "100")
            try vault.add(title: "other", body: "x")
            let old = try storedNoteRow(balance.id, dir)
            let edited = try vault.update(Note(balance, body: "5"))
            let key = try vault.exportMasterKey()
            vault.close()
            try putBack(old, of: balance.id, dir)

            let damaged = try Vault.open(in: dir + "/vault", using: .masterKey(key))
            #expect(expectVaultError(.tampered) { try damaged.note(id: balance.id) }?.part == "note set")
            expectVaultError(.tampered) { try damaged.update(edited) }
            expectVaultError(.tampered) { try damaged.deleteNote(id: balance.id) }
            // The refused writes changed nothing: the old row is still there, still refused.
            #expect(try storedNoteRow(balance.id, dir).revision == old.revision)
            expectVaultError(.tampered) { try damaged.list() }
        }
    }

    @Test("a deleted note row is refused by a read of any note in its bucket, and by list")
    func deletedNoteInBucket() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            let gone = note(id(inBucket: 0xab), "evidence", "x")
            let neighbour = note(id(inBucket: 0xab), "neighbour", "y")
            let elsewhere = note(id(inBucket: 0x12), "elsewhere", "z")
            try vault.add([gone, neighbour, elsewhere])
            let key = try vault.exportMasterKey()
            vault.close()
            try withRawDatabase(dir) { db in
                try db.execute(sql: "DELETE FROM notes WHERE id = ?", arguments: [gone.id.uuidString.lowercased()])
            }
            let damaged = try Vault.open(in: dir + "/vault", using: .masterKey(key))
            expectVaultError(.tampered) { try damaged.note(id: neighbour.id) }
            // Not "not found": the manifest says it should be there.
            expectVaultError(.tampered) { try damaged.note(id: gone.id) }
            expectVaultError(.tampered) { try damaged.list() }
            // A single read checks its own bucket only; the full set is checked by list above.
            #expect(try damaged.note(id: elsewhere.id).body == "z")
        }
    }

    @Test("ids in the bucket's key range that no bucket owns are tampering")
    func foreignIDInRange() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            let mine = note(id(inBucket: 0x9f), "mine", "x")
            try vault.add([mine])
            let key = try vault.exportMasterKey()
            vault.close()
            // "9z…" sorts between "9f" and "a0", so it lies in bucket 0x9f's range.
            try withRawDatabase(dir) { db in
                try db.execute(sql: "INSERT INTO notes (id, revision, header) VALUES ('9z', 1, x'00')")
            }
            let damaged = try Vault.open(in: dir + "/vault", using: .masterKey(key))
            #expect(expectVaultError(.tampered) { try damaged.note(id: mine.id) }?.part == "note table")
        }
    }

    @Test("an older setting row put back is refused by every single-setting access")
    func rolledBackSetting() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            try vault.setSetting("8h", for: "cache-expiry")
            try vault.setSetting("5", for: "tries")
            let old = try storedRow(dir, "SELECT revision, sealed FROM settings WHERE key = 'cache-expiry'")
            try vault.setSetting("1m", for: "cache-expiry")
            let key = try vault.exportMasterKey()
            vault.close()
            try withRawDatabase(dir) { db in
                try db.execute(
                    sql: "UPDATE settings SET revision = ?, sealed = ? WHERE key = 'cache-expiry'",
                    arguments: [old["revision"], old["sealed"]])
            }
            let damaged = try Vault.open(in: dir + "/vault", using: .masterKey(key))
            #expect(expectVaultError(.tampered) { try damaged.setting("cache-expiry") }?.part == "setting set")
            expectVaultError(.tampered) { try damaged.stringSetting("cache-expiry") }
            // Another setting is refused too: the set as a whole is not what the manifest says.
            expectVaultError(.tampered) { try damaged.setting("tries") }
            expectVaultError(.tampered) { try damaged.setSetting("2h", for: "cache-expiry") }
            expectVaultError(.tampered) { try damaged.removeSetting("cache-expiry") }
            expectVaultError(.tampered) { try damaged.settings() }
        }
    }

    @Test("a deleted setting reads as tampering, not as never set")
    func deletedSetting() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            try vault.setSetting("3", for: "tries")
            let key = try vault.exportMasterKey()
            vault.close()
            try withRawDatabase(dir) { db in try db.execute(sql: "DELETE FROM settings") }
            let damaged = try Vault.open(in: dir + "/vault", using: .masterKey(key))
            expectVaultError(.tampered) { try damaged.setting("tries") }
            expectVaultError(.tampered) { try damaged.setSetting("10", for: "tries") }
        }
    }

    @Test("an older template row put back is refused by template, putTemplate and deleteTemplate")
    func rolledBackTemplate() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            try vault.putTemplate(Data([1]), reader: "r:1", finger: "left-thumb")
            let old = try storedRow(dir, "SELECT revision, sealed FROM templates")
            try vault.putTemplate(Data([2]), reader: "r:1", finger: "left-thumb")
            let key = try vault.exportMasterKey()
            vault.close()
            try withRawDatabase(dir) { db in
                try db.execute(sql: "UPDATE templates SET revision = ?, sealed = ?", arguments: [old["revision"], old["sealed"]])
            }
            let damaged = try Vault.open(in: dir + "/vault", using: .masterKey(key))
            #expect(
                expectVaultError(.tampered) { try damaged.template(reader: "r:1", finger: "left-thumb") }?.part
                    == "template set")
            expectVaultError(.tampered) { try damaged.putTemplate(Data([3]), reader: "r:1", finger: "left-thumb") }
            expectVaultError(.tampered) { try damaged.putTemplate(Data([3]), reader: "r:1", finger: "right-thumb") }
            expectVaultError(.tampered) { try damaged.deleteTemplate(reader: "r:1", finger: "left-thumb") }
            expectVaultError(.tampered) { try damaged.deleteTemplates() }
        }
    }

    @Test("untouched vaults read, update and delete single rows as before")
    func genuineSingleReads() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            // Several notes per bucket, and buckets at both ends of the id range.
            var notes: [Note] = []
            for bucket: UInt8 in [0x00, 0x00, 0x9f, 0xa0, 0xff, 0xff] {
                notes.append(note(id(inBucket: bucket), "in \(bucket)", "body \(notes.count)"))
            }
            try vault.add(notes)
            var edited = notes[1]
            edited.body = "edited"
            try vault.update(edited)
            try vault.deleteNote(id: notes[4].id)
            #expect(try vault.note(id: notes[1].id).body == "edited")
            for note in notes where note.id != notes[1].id && note.id != notes[4].id {
                #expect(try vault.note(id: note.id).body == note.body)
            }
            expectVaultError(.notFound) { try vault.note(id: notes[4].id) }
            try vault.setSetting("1h", for: "cache-expiry")
            #expect(try vault.stringSetting("cache-expiry") == "1h")
            #expect(try vault.removeSetting("cache-expiry"))
            #expect(try vault.setting("cache-expiry") == nil)
            try vault.putTemplate(Data([1]), reader: "r:1", finger: "left-thumb")
            #expect(try vault.template(reader: "r:1", finger: "left-thumb") == Data([1]))
            #expect(try vault.deleteTemplate(reader: "r:1", finger: "left-thumb"))
            try vault.verifyIntegrity()
        }
    }
}

extension Note {
    /// A copy with another body. (Tests build edited notes with this rather than a `var` captured
    /// by the nested closures: Swift 6.3's AccessEnforcementSelection pass crashes on that.)
    init(_ note: Note, body: String) {
        self = note
        self.body = body
    }
}
