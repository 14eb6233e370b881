import FingerlockTestSupport
import Foundation
import GRDB
import Testing
import Vault

/// Full reads (list, search) open rows in batches on several threads: a damaged row or a changed
/// note set is caught wherever it falls, in the first batch, in a later one or in the last partial
/// one, and results are the same as one row at a time would give.
@Suite("Vault full scans", .timed)
struct VaultFullScanTests {
    /// More notes than two full batches of a scan (2,048 rows each) and a partial third.
    static let count = 2 * 2048 + 100

    /// A vault with `count` notes; every 500th has "needle" in its body. Returns the notes' ids in
    /// row order.
    func makeLargeVault(_ dir: String) throws -> (Vault, [UUID]) {
        let (vault, _) = try makeVault(dir)
        let stamp = Date(timeIntervalSinceReferenceDate: 700_000_000)
        var notes: [Note] = []
        for index in 0..<Self.count {
            let body: String = index % 500 == 0 ? "has the needle" : "plain body \(index)"
            let tags: [String] = index % 2 == 0 ? ["even"] : []
            let modified: Date = stamp.addingTimeInterval(Double(index))
            notes.append(Note(title: "note \(index)", body: body, tags: tags, created: stamp, modified: modified))
        }
        try vault.add(notes)
        return (vault, notes.map { $0.id })
    }

    @Test("list and search over several batches return every match, newest first")
    func results() throws {
        try withScratch { dir in
            let (vault, ids) = try makeLargeVault(dir)
            defer { vault.close() }
            let listed = try vault.list()
            #expect(listed.count == Self.count)
            #expect(listed.map(\.id) == ids.reversed())
            #expect(try vault.list(NoteFilter(tags: ["even"])).count == (Self.count + 1) / 2)
            let found = try vault.search("NEEDLE")
            #expect(found.map(\.id) == stride(from: 0, to: Self.count, by: 500).reversed().map { ids[$0] })
            #expect(try vault.search("note 4195", titlesOnly: true).map(\.title) == ["note 4195"])
        }
    }

    @Test("a limit keeps the newest notes across batches, as the full listing orders them", arguments: [0, 1, 5, 2048, 5000, .max])
    func limited(limit: Int) throws {
        try withScratch { dir in
            let (vault, ids) = try makeLargeVault(dir)
            defer { vault.close() }
            let newest = Array(ids.reversed().prefix(limit))
            #expect(try vault.list(limit: limit).map(\.id) == newest)
            #expect(
                try vault.list(NoteFilter(tags: ["even"]), limit: limit).map(\.id)
                    == Array(
                        ids.indices.reversed().filter { $0 % 2 == 0 }.prefix(limit).map { ids[$0] }))
            let needles = stride(from: 0, to: Self.count, by: 500).reversed().map { ids[$0] }
            #expect(try vault.search("NEEDLE", limit: limit).map(\.id) == Array(needles.prefix(limit)))
        }
    }

    @Test("notes with the same date are listed by id, with and without a limit")
    func sameDate() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            defer { vault.close() }
            let stamp = Date(timeIntervalSinceReferenceDate: 700_000_000)
            let notes = (0..<3000).map { Note(title: "n \($0)", body: "", created: stamp, modified: stamp) }
            try vault.add(notes)
            let byID = notes.map(\.id).sorted { $0.uuidString < $1.uuidString }
            #expect(try vault.list().map(\.id) == byID)
            #expect(try vault.list(limit: 7).map(\.id) == Array(byID.prefix(7)))
        }
    }

    @Test(
        "a damaged header or body in any batch is tampering with that note",
        arguments: [0, 2047, 2048, 3000, 2 * 2048 + 99])
    func damagedRow(position: Int) throws {
        try withScratch { dir in
            let (vault, ids) = try makeLargeVault(dir)
            defer { vault.close() }
            let id = ids[position].uuidString.lowercased()
            try withRawDatabase(dir) { db in
                try db.execute(sql: "UPDATE notes SET header = CAST(header || x'00' AS BLOB) WHERE id = ?", arguments: [id])
            }
            #expect(expectVaultError(.tampered) { try vault.list() }?.part == "note \(id)")
            #expect(expectVaultError(.tampered) { try vault.search("needle") }?.part == "note \(id)")
            #expect(expectVaultError(.tampered) { try vault.search("needle", titlesOnly: true) }?.part == "note \(id)")
        }
    }

    @Test("a damaged body in a later batch fails search but not list (list reads no body)")
    func damagedBody() throws {
        try withScratch { dir in
            let (vault, ids) = try makeLargeVault(dir)
            defer { vault.close() }
            let id = ids[3000].uuidString.lowercased()
            try withRawDatabase(dir) { db in
                try db.execute(
                    sql: "UPDATE note_bodies SET body = CAST(body || x'00' AS BLOB) WHERE note = (SELECT seq FROM notes WHERE id = ?)",
                    arguments: [id])
            }
            #expect(try vault.list().count == Self.count)
            #expect(expectVaultError(.tampered) { try vault.search("needle") }?.part == "note \(id)")
        }
    }

    @Test("the first damaged row in row order is the one reported, whatever thread opened it")
    func firstDamage() throws {
        try withScratch { dir in
            let (vault, ids) = try makeLargeVault(dir)
            defer { vault.close() }
            let first = ids[2100].uuidString.lowercased()
            try withRawDatabase(dir) { db in
                for position in [2100, 2500, 4000] {
                    try db.execute(
                        sql: "UPDATE notes SET header = CAST(header || x'00' AS BLOB) WHERE id = ?",
                        arguments: [ids[position].uuidString.lowercased()])
                }
            }
            #expect(expectVaultError(.tampered) { try vault.list() }?.part == "note \(first)")
        }
    }

    /// Column values a damaged or edited file can hold that no note row has (the table is not
    /// STRICT, so SQLite keeps them), and the part each is reported as.
    static let wrongValues: [(sql: String, part: String)] = [
        ("UPDATE notes SET revision = 'seven' WHERE id = ?", "note"),
        ("UPDATE notes SET revision = 0 WHERE id = ?", "note"),
        ("UPDATE notes SET revision = -3 WHERE id = ?", "note"),
        ("UPDATE notes SET revision = 2.5 WHERE id = ?", "note"),
        ("UPDATE notes SET header = CAST(header AS TEXT) WHERE id = ?", "note"),
        ("UPDATE notes SET header = 7 WHERE id = ?", "note"),
        ("UPDATE notes SET header = x'' WHERE id = ?", "note"),
        ("UPDATE notes SET id = CAST(id AS BLOB) WHERE id = ?", "note table"),
        ("UPDATE notes SET id = 'zz' || substr(id, 3) WHERE id = ?", "note table"),
    ]

    @Test("a value of the wrong type or range in any column of a later batch is tampering", arguments: wrongValues.indices)
    func wrongValue(index: Int) throws {
        try withScratch { dir in
            let (vault, ids) = try makeLargeVault(dir)
            defer { vault.close() }
            let id = ids[3000].uuidString.lowercased()
            try withRawDatabase(dir) { db in try db.execute(sql: Self.wrongValues[index].sql, arguments: [id]) }
            let part = Self.wrongValues[index].part == "note" ? "note \(id)" : "note table"
            #expect(expectVaultError(.tampered) { try vault.list() }?.part == part)
            #expect(expectVaultError(.tampered) { try vault.search("needle") }?.part == part)
        }
    }

    @Test("a body missing from a later batch fails search, which reads bodies, with that note")
    func missingBody() throws {
        try withScratch { dir in
            let (vault, ids) = try makeLargeVault(dir)
            defer { vault.close() }
            let id = ids[3000].uuidString.lowercased()
            try withRawDatabase(dir) { db in
                try db.execute(sql: "DELETE FROM note_bodies WHERE note = (SELECT seq FROM notes WHERE id = ?)", arguments: [id])
            }
            #expect(expectVaultError(.tampered) { try vault.search("needle") }?.part == "note \(id)")
            #expect(try vault.list().count == Self.count)
        }
    }

    @Test(
        "the first bad row in row order is reported, whether its damage is a wrong type or a failed open",
        arguments: [false, true])
    func firstBadRowOfEitherKind(typeFirst: Bool) throws {
        try withScratch { dir in
            let (vault, ids) = try makeLargeVault(dir)
            defer { vault.close() }
            // Both in the second batch, in different workers' shares (on two or more cores).
            let (first, later) = (ids[2100].uuidString.lowercased(), ids[3500].uuidString.lowercased())
            let (typed, sealed) = typeFirst ? (first, later) : (later, first)
            try withRawDatabase(dir) { db in
                try db.execute(sql: "UPDATE notes SET header = CAST(header || x'00' AS BLOB) WHERE id = ?", arguments: [sealed])
                try db.execute(sql: "UPDATE notes SET revision = 'seven' WHERE id = ?", arguments: [typed])
            }
            #expect(expectVaultError(.tampered) { try vault.list() }?.part == "note \(first)")
            #expect(expectVaultError(.tampered) { try vault.search("needle") }?.part == "note \(first)")
        }
    }

    @Test("a damaged page further on is reported after the bad rows before it")
    func damagedPageAfterABadRow() throws {
        try withScratch { dir in
            let (vault, ids) = try makeLargeVault(dir)
            defer { vault.close() }
            let bad = ids[10].uuidString.lowercased()
            let (original, page, pageSize) = try withRawDatabase(dir) { db in
                let original = try Data.fetchOne(db, sql: "SELECT header FROM notes WHERE id = ?", arguments: [bad])
                try db.execute(sql: "UPDATE notes SET header = CAST(header || x'00' AS BLOB) WHERE id = ?", arguments: [bad])
                _ = try Row.fetchAll(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)")
                // The notes table's leaf pages in row order; one about 70% along holds rows read
                // while the first batch (which holds the bad row) is still being opened.
                let leaves = try Int.fetchAll(
                    db, sql: "SELECT pageno FROM dbstat WHERE name = 'notes' AND pagetype = 'leaf' ORDER BY path")
                return (original, leaves[leaves.count * 7 / 10], try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 0)
            }
            let file = try #require(FileHandle(forUpdatingAtPath: dir + "/vault/vault.sqlite"))
            // Page type 0xFF: no b-tree page is that; SQLite reports the file as malformed there.
            try file.seek(toOffset: UInt64((page - 1) * pageSize))
            try file.write(contentsOf: Data([0xFF]))
            try file.close()
            #expect(expectVaultError(.tampered) { try vault.list() }?.part == "note \(bad)")
            // With the bad row repaired the damaged page itself is what a listing reports.
            try withRawDatabase(dir) { db in
                try db.execute(sql: "UPDATE notes SET header = ? WHERE id = ?", arguments: [original, bad])
            }
            #expect(expectVaultError(.corrupt) { try vault.list() }?.part == "database")
        }
    }

    @Test("large notes are read in batches of bounded size, and every one is searched")
    func largeNotes() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            defer { vault.close() }
            let stamp = Date(timeIntervalSinceReferenceDate: 700_000_000)
            // Ten notes of 1 MB: more than two batches' worth of bytes, far fewer rows than a batch.
            let filler = String(repeating: "0123456789abcdef", count: 1 << 16)
            let notes = (0..<10).map { index in
                Note(
                    title: "big \(index)", body: filler + (index == 9 ? " needle" : ""), created: stamp,
                    modified: stamp.addingTimeInterval(Double(index)))
            }
            try vault.add(notes)
            #expect(try vault.search("needle").map(\.title) == ["big 9"])
            #expect(try vault.list().map(\.title) == (0..<10).reversed().map { "big \($0)" })
        }
    }

    @Test("a row deleted from a later batch is caught by the manifest check of a full read")
    func deletedRow() throws {
        try withScratch { dir in
            let (vault, ids) = try makeLargeVault(dir)
            defer { vault.close() }
            try withRawDatabase(dir) { db in
                try db.execute(sql: "DELETE FROM notes WHERE id = ?", arguments: [ids[4100].uuidString.lowercased()])
            }
            #expect(expectVaultError(.tampered) { try vault.list() }?.part == "note set")
            #expect(expectVaultError(.tampered) { try vault.search("needle") }?.part == "note set")
        }
    }
}
