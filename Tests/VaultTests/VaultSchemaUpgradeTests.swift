import FingerlockTestSupport
import Foundation
import GRDB
import Testing
import Vault

/// Migration "v2" (the (id, revision) index): vaults written before it open, get it once the key
/// proved the vault ours, and read exactly as before; the schema check holds for both layouts.
@Suite("Vault schema upgrade", .timed)
struct VaultSchemaUpgradeTests {
    /// Turns a current vault back into the layout written before migration "v2".
    func downgradeToV1(_ dir: String) throws {
        try withRawDatabase(dir) { db in
            try db.execute(sql: "DROP INDEX notes_id_revision")
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v2-notes-id-revision'")
        }
    }

    func indexAndMigration(_ dir: String) throws -> (index: Bool, recorded: Bool) {
        try withRawDatabase(dir) { db in
            (
                try Bool.fetchOne(db, sql: "SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'notes_id_revision'")
                    ?? false,
                try Bool.fetchOne(db, sql: "SELECT 1 FROM grdb_migrations WHERE identifier = 'v2-notes-id-revision'")
                    ?? false
            )
        }
    }

    @Test("a new vault has the (id, revision) index and its migration recorded")
    func newVault() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            vault.close()
            let state = try indexAndMigration(dir)
            #expect(state.index && state.recorded)
        }
    }

    @Test(
        "a vault written before the index opens, gets it, and reads and checks as before",
        arguments: ["passcode", "cached key"])
    func upgrade(way: String) throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            let key = try vault.exportMasterKey()
            let kept = try vault.add(title: "kept", body: "body one", tags: ["a"])
            var changed = try vault.add(title: "changed", body: "body two")
            changed.body = "body two, edited"
            try vault.update(changed)
            let before = try vault.list()
            vault.close()
            try downgradeToV1(dir)
            #expect(try indexAndMigration(dir) == (false, false))

            // The store-id lookup reads an old vault without changing it.
            _ = try Vault.storeID(in: dir + "/vault")
            #expect(try indexAndMigration(dir) == (false, false))

            let reopened =
                way == "passcode"
                ? try Vault.open(in: dir + "/vault", using: .passcode(passcode))
                : try #require(try Vault.open(in: dir + "/vault", masterKeyFor: { _ in key }))
            defer { reopened.close() }
            #expect(try indexAndMigration(dir) == (true, true))
            #expect(try reopened.list() == before)
            #expect(try reopened.note(id: kept.id).body == "body one")
            #expect(try reopened.note(id: changed.id).body == "body two, edited")
            try reopened.verifyIntegrity()
        }
    }

    @Test("a wrong key leaves an old vault as it was")
    func wrongKeyNoUpgrade() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            vault.close()
            try downgradeToV1(dir)
            expectVaultError(.wrongPasscode) { try Vault.open(in: dir + "/vault", using: .passcode("not the passcode")) }
            #expect(try indexAndMigration(dir) == (false, false))
        }
    }

    @Test("the index missing from an upgraded vault is tampering")
    func missingIndex() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            vault.close()
            try withRawDatabase(dir) { db in try db.execute(sql: "DROP INDEX notes_id_revision") }
            let error = expectVaultError(.tampered) { try Vault.open(in: dir + "/vault", using: .passcode(passcode)) }
            #expect(error?.message.contains("missing its index \"notes_id_revision\"") == true, "\(error?.message ?? "")")
        }
    }

    @Test("the index present in a vault that records no such migration is refused")
    func unrecordedIndex() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            vault.close()
            try withRawDatabase(dir) { db in
                try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v2-notes-id-revision'")
            }
            let error = expectVaultError(.tampered) { try Vault.open(in: dir + "/vault", using: .passcode(passcode)) }
            #expect(error?.part == "database schema")
        }
    }

    @Test("a rolled-back note is still caught by single reads through the index")
    func rollbackThroughIndex() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            var note = try vault.add(title: "t", body: "one")
            let old = try withRawDatabase(dir) { db in
                try Row.fetchOne(db, sql: "SELECT revision, header FROM notes WHERE id = ?", arguments: [note.id.storageText])
            }
            let oldBody = try withRawDatabase(dir) { db in
                try Data.fetchOne(
                    db, sql: "SELECT b.body FROM note_bodies b JOIN notes n ON b.note = n.seq WHERE n.id = ?",
                    arguments: [note.id.storageText])
            }
            note.body = "two"
            try vault.update(note)
            try withRawDatabase(dir) { db in
                try db.execute(
                    sql: "UPDATE notes SET revision = ?, header = ? WHERE id = ?",
                    arguments: [old?[0], old?[1], note.id.storageText])
                try db.execute(
                    sql: "UPDATE note_bodies SET body = ? WHERE note = (SELECT seq FROM notes WHERE id = ?)",
                    arguments: [oldBody, note.id.storageText])
            }
            expectVaultError(.tampered) { try vault.note(id: note.id) }
            expectVaultError(.tampered) { try vault.list() }
            vault.close()
        }
    }
}

extension UUID {
    /// The id as the vault stores it.
    var storageText: String { uuidString.lowercased() }
}
