import Crypto
import FingerlockTestSupport
import Foundation
import GRDB
import SafeFiles
import Testing
import Vault

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Vault tampering", .timed)
struct VaultTamperTests {
    /// Everything readable from a vault, for comparing a damaged copy with the original.
    struct Contents: Equatable {
        var notes: [Note]
        var listed: [NoteSummary]
        var templates: [SealedTemplate]
        var settings: [String: Data]

        init(_ vault: Vault) throws {
            notes = try vault.allNotes()
            listed = try vault.list()
            templates = try vault.templates()
            settings = try vault.settings()
            for note in notes { _ = try vault.note(id: note.id) }
        }
    }

    /// The sweep is split in `byteFlipParts` interleaved parts, each on a vault of its own made the
    /// same way, so the parts run side by side (each flip costs a vault open, some a passcode).
    static let byteFlipParts = 8

    @Test(
        "every single-byte flip of a small vault is detected or harmless", .timeLimit(.minutes(4)),
        arguments: 0..<byteFlipParts)
    func byteFlips(part: Int) throws {
        try withScratch { dir in
            // 512-byte pages keep the file (and so the sweep) small.
            let (vault, _) = try makeVault(dir, pageSize: 512)
            try vault.add(title: "alpha", body: "first body", tags: ["x"])
            let second = try vault.add(title: "beta", body: "second body")
            var edited = second
            edited.body = "second body, edited"
            try vault.update(edited)
            try vault.putTemplate(Data("template".utf8), reader: "virtual_image:0", finger: "left-thumb")
            try vault.setSetting("8h", for: "cache-expiry")
            let key = try vault.exportMasterKey()
            let expected = try Contents(vault)
            vault.close()

            let original = try AtomicFile.read(dir + "/vault/vault.sqlite")
            #expect(original.count <= 16 * 1024)
            let work = dir + "/work"
            #expect(mkdir(work, 0o700) == 0)
            var detected = 0
            var harmless = 0
            for offset in stride(from: part, to: original.count, by: Self.byteFlipParts) {
                var bytes = original
                bytes[offset] ^= 0xFF
                for suffix in ["-wal", "-shm", "-journal"] { unlink(work + "/vault.sqlite" + suffix) }
                // No fsync: the copy only has to be read back by this process.
                try Data(bytes).write(to: URL(fileURLWithPath: work + "/vault.sqlite"))
                #expect(chmod(work + "/vault.sqlite", 0o600) == 0)
                // Mostly the fast master-key path; every 8th byte of the part also through the passcode slot.
                let credential: VaultCredential = (offset / Self.byteFlipParts) % 8 == 0 ? .passcode(passcode) : .masterKey(key)
                do {
                    let damaged = try Vault.open(in: work, using: credential)
                    defer { damaged.close() }
                    let contents = try Contents(damaged)
                    #expect(contents == expected, "flip at \(offset) changed the content")
                    harmless += 1
                } catch let error as VaultError {
                    // notFound: a flip inside the id index makes a single lookup miss its row (the
                    // full reads above it still saw every note): refused, never wrong content.
                    #expect(
                        [.tampered, .corrupt, .wrongKey, .wrongPasscode, .notAVault, .unsupportedFormat, .io, .notFound]
                            .contains(error.code), "flip at \(offset): \(error)")
                    detected += 1
                } catch {
                    Issue.record("flip at \(offset): unexpected \(error)")
                }
            }
            #expect(detected > 0 && harmless > 0)
            let swept = (original.count - part + Self.byteFlipParts - 1) / Self.byteFlipParts
            print(
                "byte flips, part \(part + 1) of \(Self.byteFlipParts): \(swept) of \(original.count) bytes, \(detected) detected, \(harmless) harmless"
            )
            #expect(detected + harmless == swept)
        }
    }

    @Test("rows swapped between notes are tampering")
    func swappedRows() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            let a = try vault.add(title: "a", body: "body a")
            let b = try vault.add(title: "b", body: "body b")
            let key = try vault.exportMasterKey()
            vault.close()
            try withRawDatabase(dir) { db in
                let rows = try Row.fetchAll(db, sql: "SELECT seq, header FROM notes ORDER BY seq")
                try db.execute(sql: "UPDATE notes SET header = ? WHERE seq = ?", arguments: [rows[1]["header"], rows[0]["seq"]])
                try db.execute(sql: "UPDATE notes SET header = ? WHERE seq = ?", arguments: [rows[0]["header"], rows[1]["seq"]])
            }
            let damaged = try Vault.open(in: dir + "/vault", using: .masterKey(key))
            expectVaultError(.tampered) { try damaged.list() }
            expectVaultError(.tampered) { try damaged.note(id: a.id) }
            expectVaultError(.tampered) { try damaged.search("a") }
            damaged.close()

            // Bodies swapped (headers put back) are caught too.
            try withRawDatabase(dir) { db in
                let rows = try Row.fetchAll(db, sql: "SELECT seq, header FROM notes ORDER BY seq")
                try db.execute(sql: "UPDATE notes SET header = ? WHERE seq = ?", arguments: [rows[1]["header"], rows[0]["seq"]])
                try db.execute(sql: "UPDATE notes SET header = ? WHERE seq = ?", arguments: [rows[0]["header"], rows[1]["seq"]])
                let bodies = try Row.fetchAll(db, sql: "SELECT note, body FROM note_bodies ORDER BY note")
                try db.execute(sql: "UPDATE note_bodies SET body = ? WHERE note = ?", arguments: [bodies[1]["body"], bodies[0]["note"]])
                try db.execute(sql: "UPDATE note_bodies SET body = ? WHERE note = ?", arguments: [bodies[0]["body"], bodies[1]["note"]])
            }
            let again = try Vault.open(in: dir + "/vault", using: .masterKey(key))
            #expect(try again.list().count == 2)
            expectVaultError(.tampered) { try again.note(id: b.id) }
            expectVaultError(.tampered) { try again.allNotes() }
        }
    }

    @Test("an old revision put back is tampering")
    func rolledBackRevision() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            let note = try vault.add(title: "balance", body: "100")
            try vault.add(title: "other", body: "x")
            let oldRow = try storedNoteRow(note.id, dir)
            var edited = note
            edited.body = "5"
            try vault.update(edited)
            let key = try vault.exportMasterKey()
            vault.close()
            try putBack(oldRow, of: note.id, dir)
            let damaged = try Vault.open(in: dir + "/vault", using: .masterKey(key))
            #expect(expectVaultError(.tampered) { try damaged.list() }?.part == "note set")
            expectVaultError(.tampered) { try damaged.search("balance") }
            expectVaultError(.tampered) { try damaged.exportJSON() }
            expectVaultError(.tampered) { try damaged.verifyIntegrity() }
            expectVaultError(.tampered) { try damaged.backup(to: dir + "/copy") }
        }
    }

    @Test("a deleted row is tampering")
    func deletedRow() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            let gone = try vault.add(title: "evidence", body: "x")
            try vault.add(title: "other", body: "y")
            try vault.putTemplate(Data([1]), reader: "r:1", finger: "left-thumb")
            try vault.putTemplate(Data([2]), reader: "r:1", finger: "right-thumb")
            let key = try vault.exportMasterKey()
            vault.close()
            try withRawDatabase(dir) { db in
                try db.execute(sql: "DELETE FROM notes WHERE id = ?", arguments: [gone.id.uuidString.lowercased()])
                try db.execute(sql: "DELETE FROM templates WHERE finger = 'right-thumb'")
            }
            let damaged = try Vault.open(in: dir + "/vault", using: .masterKey(key))
            #expect(expectVaultError(.tampered) { try damaged.list() }?.part == "note set")
            #expect(expectVaultError(.tampered) { try damaged.templates() }?.part == "template set")
            damaged.close()

            // A body row deleted on its own is caught where bodies are read.
            try withRawDatabase(dir) { db in try db.execute(sql: "DELETE FROM note_bodies") }
            let again = try Vault.open(in: dir + "/vault", using: .masterKey(key))
            expectVaultError(.tampered) { try again.search("x") }
        }
    }

    @Test("a template or setting moved to another finger or name is tampering")
    func movedTemplate() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            try vault.putTemplate(Data([1]), reader: "r:1", finger: "left-thumb")
            try vault.setSetting("1h", for: "cache-expiry")
            let key = try vault.exportMasterKey()
            vault.close()
            try withRawDatabase(dir) { db in
                try db.execute(sql: "UPDATE templates SET finger = 'right-thumb'")
                try db.execute(sql: "UPDATE settings SET key = 'scan-timeout'")
            }
            let damaged = try Vault.open(in: dir + "/vault", using: .masterKey(key))
            expectVaultError(.tampered) { try damaged.template(reader: "r:1", finger: "right-thumb") }
            expectVaultError(.tampered) { try damaged.templates() }
            expectVaultError(.tampered) { try damaged.setting("scan-timeout") }
            expectVaultError(.tampered) { try damaged.putTemplate(Data([3]), reader: "r:1", finger: "right-thumb") }
        }
    }

    @Test("the vault kind cannot be changed without the key")
    func kindFlip() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir, kind: .test)
            vault.close()
            try withRawDatabase(dir) { db in try db.execute(sql: "UPDATE meta SET kind = 'hardware'") }
            #expect(
                expectVaultError(.tampered) { try Vault.open(in: dir + "/vault", using: .passcode(passcode)) }?.part
                    == "slot table")
        }
    }
}
