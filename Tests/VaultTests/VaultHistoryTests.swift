import FingerlockTestSupport
import Foundation
import GRDB
import Testing
import Vault

/// Every edit keeps the version it replaces, sealed as the note was; kept revisions are listed,
/// read, restored and pruned to the retention, and the manifest counts them.
@Suite("Vault note history", .timed)
struct VaultHistoryTests {
    /// A note saved as "v1", then edited to "v2" … "v\(versions)".
    func noteWithVersions(_ vault: Vault, _ versions: Int) throws -> Note {
        var note = try vault.add(title: "t1", body: "v1", tags: ["a"])
        for version in stride(from: 2, through: versions, by: 1) {
            note.title = "t\(version)"
            note.body = "v\(version)"
            note = try vault.update(note)
        }
        return note
    }

    @Test("edits are kept, newest first, each readable as it was")
    func listAndRead() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            defer { vault.close() }
            let note = try noteWithVersions(vault, 4)
            let history = try vault.history(of: note.id)
            #expect(history.current == 4)
            #expect(history.revisions.map(\.number) == [3, 2, 1])
            #expect(history.revisions.map(\.title) == ["t3", "t2", "t1"])
            #expect(history.revisions.map(\.size) == [2, 2, 2])
            let first = try vault.revision(1, of: note.id)
            #expect(first.body == "v1" && first.title == "t1" && first.tags == ["a"] && first.id == note.id)
            // An edit that changes nothing keeps no revision.
            try vault.update(id: note.id) { (_: inout Note) throws(VaultError) in }
            #expect(try vault.history(of: note.id).revisions.count == 3)
            expectVaultError(.notFound) { try vault.history(of: UUID()) }
        }
    }

    @Test("the oldest revisions beyond the limit go at the next edit; a pruned one is not found")
    func pruning() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            defer { vault.close() }
            vault.retention = NoteRetention(revisionsKept: 2)
            let note = try noteWithVersions(vault, 5)
            #expect(try vault.history(of: note.id).revisions.map(\.number) == [4, 3])
            let error = expectVaultError(.notFound) { try vault.revision(1, of: note.id) }
            #expect(error?.message.contains("pruned") == true)
            expectVaultError(.notFound) { try vault.restoreRevision(2, of: note.id) }
            expectVaultError(.notFound) { try vault.revision(5, of: note.id) }
            vault.retention = NoteRetention(revisionsKept: 0)
            var edited = try vault.note(id: note.id)
            edited.body = "v6"
            try vault.update(edited)
            #expect(try vault.history(of: note.id).revisions.isEmpty)
            try vault.verifyIntegrity()
        }
    }

    @Test("restoring a revision saves it as a new one; the current version joins the history")
    func restore() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            defer { vault.close() }
            let note = try noteWithVersions(vault, 3)
            let restored = try vault.restoreRevision(1, of: note.id)
            #expect(restored.body == "v1" && restored.title == "t1")
            #expect(restored.created == note.created)
            #expect(try vault.note(id: note.id) == restored)
            let history = try vault.history(of: note.id)
            #expect(history.current == 4)
            #expect(history.revisions.map(\.number) == [3, 2, 1])
            #expect(try vault.revision(3, of: note.id).body == "v3")
        }
    }

    @Test("a permanently deleted note takes its history along")
    func deleteTakesHistory() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            let note = try noteWithVersions(vault, 3)
            try vault.deleteNotes([note.id])
            try vault.verifyIntegrity()
            vault.close()
            #expect(try withRawDatabase(dir) { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM note_revisions") } == 0)
        }
    }

    @Test(
        "a revision row deleted, swapped to another note, moved among the notes or put back is tampering",
        arguments: ["deleted", "renumbered", "swapped", "put back"])
    func tampering(_ attack: String) throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            // Same bucket, so the bucket check sees both.
            var bytes = UUID().uuid
            bytes.0 = 0x42
            let stamp = Date(timeIntervalSince1970: 0)
            let first = Note(id: UUID(uuid: bytes), title: "first", body: "1", created: stamp, modified: stamp)
            bytes.1 &+= 1
            let second = Note(id: UUID(uuid: bytes), title: "second", body: "2", created: stamp, modified: stamp)
            try vault.add([first, second])
            var edited = first
            edited.body = "1b"
            try vault.update(edited)
            edited.body = "1c"
            try vault.update(edited)
            let key = try vault.exportMasterKey()
            vault.close()
            let id = first.id.uuidString.lowercased()
            try withRawDatabase(dir) { db in
                switch attack {
                case "deleted":
                    try db.execute(sql: "DELETE FROM note_revisions WHERE revision = 1")
                case "renumbered":
                    try db.execute(sql: "UPDATE note_revisions SET revision = 7 WHERE revision = 1")
                case "swapped":
                    try db.execute(
                        sql: "UPDATE note_revisions SET id = ? WHERE revision = 1", arguments: [second.id.uuidString.lowercased()])
                default:
                    // Revision 2 put back as the note itself: the rollback of the last edit.
                    try db.execute(
                        sql: """
                            UPDATE notes SET revision = 2, header = (SELECT header FROM note_revisions WHERE revision = 2) WHERE id = ?
                            """, arguments: [id])
                    try db.execute(
                        sql: """
                            UPDATE note_bodies SET body = (SELECT body FROM note_revisions WHERE revision = 2)
                            WHERE note = (SELECT seq FROM notes WHERE id = ?)
                            """, arguments: [id])
                    try db.execute(sql: "DELETE FROM note_revisions WHERE revision = 2")
                }
            }
            let damaged = try Vault.open(in: dir + "/vault", using: .masterKey(key))
            defer { damaged.close() }
            expectVaultError(.tampered) { try damaged.history(of: first.id) }
            expectVaultError(.tampered) { try damaged.verifyIntegrity() }
            if attack == "swapped" { expectVaultError(.tampered) { try damaged.revision(1, of: second.id) } }
            if attack == "put back" { expectVaultError(.tampered) { try damaged.note(id: first.id) } }
        }
    }

    @Test("rekey re-seals the trash and the history: both still read, and the old key opens neither")
    func rekey() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            defer { vault.close() }
            let note = try noteWithVersions(vault, 3)
            let trashed = try noteWithVersions(vault, 2)
            try vault.trashNotes([trashed.id])
            _ = try vault.rekey(passcode: passcode, cost: testCost)
            #expect(try vault.revision(1, of: note.id).body == "v1")
            #expect(try vault.trash().map(\.id) == [trashed.id])
            try vault.verifyIntegrity()
            try vault.restoreFromTrash([trashed.id])
            #expect(try vault.note(id: trashed.id).body == "v2")
            #expect(try vault.revision(1, of: trashed.id).body == "v1")
        }
    }

    @Test("a vault made before the trash and history tables gets them when opened, and restores into a new one")
    func migration() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            let note = try vault.add(title: "old", body: "from before")
            try vault.backup(to: dir + "/current.fbak")
            vault.close()
            // The layout of the previous migration list: no v4 tables, no record of v4.
            try withRawDatabase(dir) { db in
                try db.execute(sql: "DROP TABLE note_trash")
                try db.execute(sql: "DROP TABLE note_revisions")
                try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v4-trash-revisions'")
            }
            try FileManager.default.copyItem(atPath: dir + "/vault/vault.sqlite", toPath: dir + "/old.fbak")
            let reopened = try Vault.open(in: dir + "/vault", using: .passcode(passcode))
            #expect(try withRawDatabase(dir) { db in try db.tableExists("note_trash") && db.tableExists("note_revisions") })
            var edited = try reopened.note(id: note.id)
            edited.body = "after"
            try reopened.update(edited)
            #expect(try reopened.revision(1, of: note.id).body == "from before")
            try reopened.trashNotes([note.id])
            // A backup of the old layout restores over the new one, which keeps its new tables.
            try reopened.restore(from: dir + "/old.fbak")
            #expect(try reopened.note(id: note.id).body == "from before")
            #expect(try reopened.trash().isEmpty)
            try reopened.trashNotes([note.id])
            try reopened.verifyIntegrity()
            reopened.close()
        }
    }
}
