import FingerlockTestSupport
import Foundation
import GRDB
import Testing
import Vault

/// `notes rm` moves a note to the trash: out of every listing and read, restorable as it was, purged
/// when the trash is emptied or the note is older than the retention; the manifest counts the trash.
@Suite("Vault trash", .timed)
struct VaultTrashTests {
    func ids(_ dir: String, _ table: String) throws -> [String] {
        try withRawDatabase(dir) { db in try String.fetchAll(db, sql: "SELECT id FROM \(table) ORDER BY id") }
    }

    @Test("a trashed note leaves listings and reads, and comes back whole with its history")
    func trashAndRestore() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            defer { vault.close() }
            var note = try vault.add(title: "bank", body: "pin 1234", tags: ["money"])
            let other = try vault.add(title: "door", body: "code 9")
            note.body = "pin 5678"
            note = try vault.update(note)
            let moved = try vault.trashNotes([note.id])
            #expect(moved.map(\.id) == [note.id])
            #expect(try vault.list().map(\.id) == [other.id])
            #expect(try vault.noteCount() == 1)
            #expect(try vault.search("pin").isEmpty)
            expectVaultError(.notFound) { try vault.note(id: note.id) }
            let hint = expectVaultError(.notFound) { try vault.resolveNoteID(String(note.id.uuidString.lowercased().prefix(8))) }
            #expect(hint?.message.contains("is in the trash") == true)
            let trashed = try vault.trash()
            #expect(trashed.map(\.id) == [note.id])
            #expect(trashed.first?.title == "bank")
            #expect(try vault.resolveTrashedNoteID(String(note.id.uuidString.prefix(6))) == note.id)

            try vault.restoreFromTrash([note.id])
            #expect(try vault.trash().isEmpty)
            #expect(try vault.note(id: note.id) == note)
            #expect(try vault.history(of: note.id).revisions.map(\.number) == [1])
            try vault.verifyIntegrity()
        }
    }

    @Test("unknown ids move or restore nothing, all or none")
    func unknownIDs() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            defer { vault.close() }
            let note = try vault.add(title: "kept", body: "b")
            expectVaultError(.notFound) { try vault.trashNotes([note.id, UUID()]) }
            #expect(try vault.list().map(\.id) == [note.id])
            #expect(try vault.trash().isEmpty)
            expectVaultError(.notFound) { try vault.restoreFromTrash([note.id]) }
            expectVaultError(.notFound) { try vault.resolveTrashedNoteID("abc") }
            expectVaultError(.invalidInput) { try vault.resolveTrashedNoteID("xyz") }
            try vault.trashNotes([note.id])
            expectVaultError(.notFound) { try vault.restoreFromTrash([note.id, UUID()]) }
            #expect(try vault.trash().map(\.id) == [note.id])
            // A note of the same id cannot be added while its namesake waits in the trash.
            expectVaultError(.alreadyExists) {
                try vault.add([Note(id: note.id, title: "again", body: "", created: Date(), modified: Date())])
            }
        }
    }

    @Test("emptying deletes trashed notes for good with their history; --older-than only the older ones")
    func empty() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            defer { vault.close() }
            var old = try vault.add(title: "old", body: "1")
            old.body = "2"
            try vault.update(old)
            let newer = try vault.add(title: "newer", body: "3")
            try vault.trashNotes([old.id])
            let between = try #require(try vault.trash().first?.deleted).addingTimeInterval(1)
            try vault.trashNotes([newer.id])
            #expect(try vault.emptyTrash(before: between) == 1)
            #expect(try vault.trash().map(\.id) == [newer.id])
            #expect(try ids(dir, "note_revisions").isEmpty)
            #expect(try vault.emptyTrash() == 1)
            #expect(try vault.trash().isEmpty)
            #expect(try vault.emptyTrash() == 0)
            try vault.verifyIntegrity()
        }
    }

    @Test("the next note write purges notes older than the retention")
    func purgeOnWrite() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            defer { vault.close() }
            vault.retention = NoteRetention(revisionsKept: 10, trashKept: 3)
            let gone = try vault.add(title: "gone", body: "x")
            try vault.trashNotes([gone.id])
            // The test clock moves one second per reading: still within the three seconds.
            _ = try vault.add(title: "one", body: "1")
            #expect(try vault.trash().map(\.id) == [gone.id])
            for index in 0..<3 { _ = try vault.add(title: "more \(index)", body: "") }
            #expect(try vault.trash().isEmpty)
            try vault.verifyIntegrity()
        }
    }

    @Test("a trashed note put back among the notes, dropped from the trash or re-dated is tampering")
    func tampering() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            let note = try vault.add(title: "secret", body: "s")
            _ = try vault.add(title: "other", body: "o")
            try vault.trashNotes([note.id])
            let key = try vault.exportMasterKey()
            vault.close()
            let id = note.id.uuidString.lowercased()
            let saved = try withRawDatabase(dir) { db in
                try #require(try Row.fetchOne(db, sql: "SELECT revision, deleted, header, body FROM note_trash"))
            }
            func open() throws -> Vault { try Vault.open(in: dir + "/vault", using: .masterKey(key)) }

            // Re-dated, so it would be purged sooner.
            try withRawDatabase(dir) { db in try db.execute(sql: "UPDATE note_trash SET deleted = 0") }
            var damaged = try open()
            expectVaultError(.tampered) { try damaged.trash() }
            expectVaultError(.tampered) { try damaged.emptyTrash() }
            expectVaultError(.tampered) { try damaged.verifyIntegrity() }
            damaged.close()

            // Moved back among the notes by hand.
            try withRawDatabase(dir) { db in
                try db.execute(sql: "DELETE FROM note_trash")
                try db.execute(
                    sql: "INSERT INTO notes (id, revision, header) VALUES (?, ?, ?)",
                    arguments: [id, saved[0] as DatabaseValue, saved[2] as DatabaseValue])
                try db.execute(
                    sql: "INSERT INTO note_bodies (note, body) VALUES (?, ?)", arguments: [db.lastInsertedRowID, saved[3] as DatabaseValue])
            }
            damaged = try open()
            expectVaultError(.tampered) { try damaged.list() }
            expectVaultError(.tampered) { try damaged.note(id: note.id) }
            expectVaultError(.tampered) { try damaged.trash() }
            damaged.close()
        }
    }
}
