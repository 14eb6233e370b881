import FingerlockTestSupport
import Foundation
import GRDB
import Testing

@testable import Vault

@Suite("Manifest and note buckets", .timed)
struct ManifestTests {
    func id(inBucket bucket: UInt8) -> UUID {
        var bytes = UUID().uuid
        bytes.0 = bucket
        return UUID(uuid: bytes)
    }

    @Test("a bucket's key range holds exactly the ids of that bucket")
    func bucketRanges() {
        for bucket in [0x00, 0x09, 0x0a, 0x0f, 0x10, 0x9f, 0xa0, 0xfe, 0xff] {
            let id = self.id(inBucket: UInt8(bucket))
            let stored = id.storageKey
            let fromUUID = NoteBucket(id)
            #expect(fromUUID.index == bucket)
            #expect(NoteBucket(storedID: stored) == fromUUID)
            #expect(fromUUID.lowerBound <= stored && stored < fromUUID.upperBound, "\(stored)")
            if bucket > 0 { #expect(NoteBucket(self.id(inBucket: UInt8(bucket - 1))).upperBound == fromUUID.lowerBound) }
        }
        #expect(NoteBucket(id(inBucket: 0xff)).upperBound == "g")
        #expect(NoteBucket(storedID: "9z") == nil)
        #expect(NoteBucket(storedID: "AB12") == nil)
        #expect(NoteBucket(storedID: "a") == nil)
    }

    @Test("both layouts round-trip; buckets that do not add up to the note tally are refused")
    func layouts() throws {
        let keys = KeyHierarchy(master: KeyHierarchy.randomMaster(), storeID: UUID())
        let hasher = TallyHasher(key: keys.tallyKey)
        var manifest = Manifest()
        manifest.addNote(NoteBucket(id(inBucket: 3)), hasher.note("03", revision: 1))
        manifest.addNote(NoteBucket(id(inBucket: 200)), hasher.note("c8", revision: 4))
        manifest.settings.add(hasher.setting("tries", revision: 2))
        #expect(try Manifest.open(manifest.sealed(with: keys), with: keys) == manifest)

        var version1 = manifest
        version1.noteBuckets = nil
        #expect(try Manifest.open(version1.sealed(with: keys), with: keys) == version1)

        var skewed = manifest
        skewed.noteBuckets?[3] = Tally()
        let sealed = try skewed.sealed(with: keys)
        #expect(throws: VaultError.tampered("manifest")) { try Manifest.open(sealed, with: keys) }
    }

    @Test("a manifest whose buckets disagree with the rows fails full reads and single reads")
    func swappedBuckets() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            let stamp = Date(timeIntervalSince1970: 0)
            let first = Note(id: id(inBucket: 1), title: "one", body: "1", created: stamp, modified: stamp)
            let second = Note(id: id(inBucket: 2), title: "two", body: "2", created: stamp, modified: stamp)
            try vault.add([first, second])
            let keys = KeyHierarchy(master: try vault.exportMasterKey(), storeID: try vault.storeID)
            vault.close()
            // Swapping two buckets keeps the note tally (and the buckets' sum) as it was: only a
            // per-bucket comparison sees that the buckets no longer describe the rows.
            try withRawDatabase(dir) { db in
                let sealed = try #require(try Data.fetchOne(db, sql: "SELECT manifest FROM meta"))
                var manifest = try Manifest.open(sealed, with: keys)
                manifest.noteBuckets?.swapAt(1, 2)
                try db.execute(sql: "UPDATE meta SET manifest = ?", arguments: [try manifest.sealed(with: keys)])
            }
            let damaged = try Vault.open(in: dir + "/vault", using: .masterKey(keys.master))
            expectVaultError(.tampered) { try damaged.list() }
            expectVaultError(.tampered) { try damaged.search("one") }
            expectVaultError(.tampered) { try damaged.allNotes() }
            expectVaultError(.tampered) { try damaged.verifyIntegrity() }
            expectVaultError(.tampered) { try damaged.note(id: first.id) }
            expectVaultError(.tampered) { try damaged.note(id: second.id) }
        }
    }
}
