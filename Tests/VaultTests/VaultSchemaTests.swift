import FingerlockTestSupport
import Foundation
import GRDB
import Testing
import Vault

/// The database's schema must be exactly what fingerlock's migrations create: an added trigger
/// could copy notes as they are written or change rows, a view or index could do worse on read.
@Suite("Vault schema", .timed)
struct VaultSchemaTests {
    /// A closed vault with a note, a template and a setting.
    func makeClosedVault(_ dir: String) throws {
        let (vault, _) = try makeVault(dir)
        try vault.add(title: "t", body: "b")
        try vault.putTemplate(Data([1]), reader: "r:1", finger: "left-thumb")
        try vault.setSetting("1h", for: "cache-expiry")
        vault.close()
    }

    @Test(
        "an added object is refused on open, naming it",
        arguments: [
            ("CREATE TABLE stash (x BLOB)", "table \"stash\""),
            (
                "CREATE TRIGGER copy_notes AFTER INSERT ON notes BEGIN INSERT INTO settings VALUES (new.id, 1, new.header); END",
                "trigger \"copy_notes\" on \"notes\""
            ),
            ("CREATE VIEW peek AS SELECT id FROM notes", "view \"peek\""),
            ("CREATE INDEX by_revision ON notes (revision)", "index \"by_revision\" on \"notes\""),
        ])
    func addedObject(sql: String, named: String) throws {
        try withScratch { dir in
            try makeClosedVault(dir)
            try withRawDatabase(dir) { db in try db.execute(sql: sql) }
            let error = expectVaultError(.tampered) { try Vault.open(in: dir + "/vault", using: .passcode(passcode)) }
            #expect(error?.part == "database schema")
            #expect(error?.message.contains("unexpected \(named)") == true, "\(error?.message ?? "")")
            #expect(error?.message.contains("\n") == false)
            // Every way in checks it: the store-id lookup and the cached-key open too.
            expectVaultError(.tampered) { try Vault.storeID(in: dir + "/vault") }
            expectVaultError(.tampered) { try Vault.open(in: dir + "/vault", masterKeyFor: { _ in nil }) }
        }
    }

    @Test("a table whose SQL was edited in place is refused as changed")
    func editedTable() throws {
        try withScratch { dir in
            try makeClosedVault(dir)
            try withRawDatabase(dir) { db in
                try db.execute(sql: "PRAGMA writable_schema = ON")
                try db.execute(
                    sql: "UPDATE sqlite_master SET sql = replace(sql, 'revision INTEGER NOT NULL', 'revision INTEGER') WHERE name = 'notes'")
                try db.execute(sql: "PRAGMA writable_schema = OFF")
            }
            let error = expectVaultError(.tampered) { try Vault.open(in: dir + "/vault", using: .passcode(passcode)) }
            #expect(error?.message.contains("changed table \"notes\"") == true, "\(error?.message ?? "")")
        }
    }

    @Test("an object name with a line break still gives a one-line message")
    func escapedName() throws {
        try withScratch { dir in
            try makeClosedVault(dir)
            try withRawDatabase(dir) { db in try db.execute(sql: "CREATE TABLE \"two\nlines\" (x)") }
            let error = expectVaultError(.tampered) { try Vault.open(in: dir + "/vault", using: .passcode(passcode)) }
            #expect(error?.message.contains("\n") == false)
            #expect(error?.message.contains("two\\nlines") == true, "\(error?.message ?? "")")
        }
    }

    @Test("a backup with an added trigger is refused by restore, leaving the vault as it was")
    func backupWithTrigger() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            try vault.add(title: "t", body: "b")
            try vault.backup(to: dir + "/backup")
            let queue = try DatabaseQueue(path: dir + "/backup")
            try queue.write { db in
                try db.execute(sql: "CREATE TRIGGER wipe AFTER UPDATE ON meta BEGIN DELETE FROM notes; END")
            }
            try queue.close()
            let error = expectVaultError(.tampered) { try vault.restore(from: dir + "/backup") }
            #expect(error?.message.contains("trigger \"wipe\"") == true)
            #expect(try vault.list().count == 1)
        }
    }

    @Test("a genuine vault opens after every kind of write, and after SQLite's own ANALYZE")
    func genuineVault() throws {
        try withScratch { dir in
            try makeClosedVault(dir)
            let vault = try Vault.open(in: dir + "/vault", using: .passcode(passcode))
            let note = try vault.add(title: "second", body: "x")
            try vault.deleteNote(id: note.id)
            try vault.changePasscode(to: "other", cost: testCost)
            _ = try vault.rekey(passcode: "other", cost: testCost)
            try vault.backup(to: dir + "/backup")
            try vault.restore(from: dir + "/backup")
            vault.close()
            // sqlite_stat1 is SQLite's bookkeeping, not an object anyone can hide logic in.
            try withRawDatabase(dir) { db in try db.execute(sql: "ANALYZE") }
            let reopened = try Vault.open(in: dir + "/vault", using: .passcode("other"))
            #expect(try reopened.list().count == 1)
            try reopened.verifyIntegrity()
        }
    }
}
