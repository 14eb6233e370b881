import Crypto
import Dispatch
import FingerlockTestSupport
import Foundation
import Synchronization
import Testing

@testable import Vault

@Suite("AES-GCM opener (one BoringSSL context per key)", .timed)
struct AESGCMOpenerTests {
    let key = SymmetricKey(size: .bits256)
    let ad: [UInt8] = Array("note-body id 7".utf8)

    @Test("opens what Sealer seals, empty and note-sized plaintexts alike, as swift-crypto does")
    func opensSealed() throws {
        let opener = AESGCMOpener(key: key)
        for plain in [[], Array("x".utf8), [UInt8](repeating: 0x61, count: 1000), (0..<4099).map { UInt8($0 & 0xff) }] {
            let sealed = try Sealer.seal(plain, key: key, ad: ad)
            #expect(opener.open(sealed, ad: ad) == plain)
            #expect(Sealer.open(sealed, key: key, ad: ad).map(Array.init) == plain)
            let opened = sealed.withUnsafeBytes { box in
                withUnsafeTemporaryAllocation(byteCount: box.count, alignment: 8) { scratch in
                    opener.open(box, ad: ad, into: scratch).map { Array(UnsafeRawBufferPointer(scratch)[..<$0]) }
                }
            }
            #expect(opened == plain)
        }
    }

    @Test("refuses another key, other associated data, any flipped byte and short blobs")
    func refusesForgeries() throws {
        let opener = AESGCMOpener(key: key)
        let sealed = try Sealer.seal(Array("secret title".utf8), key: key, ad: ad)
        #expect(AESGCMOpener(key: SymmetricKey(size: .bits256)).open(sealed, ad: ad) == nil)
        #expect(opener.open(sealed, ad: ad + [0]) == nil)
        #expect(opener.open(sealed, ad: []) == nil)
        for index in sealed.indices {
            var flipped = sealed
            flipped[index] ^= 0x01
            #expect(opener.open(flipped, ad: ad) == nil, "byte \(index)")
        }
        for count in [0, 1, 27] { #expect(opener.open(sealed.prefix(count), ad: ad) == nil) }
        #expect(opener.open(sealed.dropLast(), ad: ad) == nil)
        // An output buffer smaller than the plaintext is refused, never overrun.
        sealed.withUnsafeBytes { box in
            withUnsafeTemporaryAllocation(byteCount: 4, alignment: 8) { scratch in
                #expect(opener.open(box, ad: ad, into: scratch) == nil)
            }
        }
    }

    @Test("one opener serves many threads at once")
    func sharedAcrossThreads() throws {
        let opener = AESGCMOpener(key: key)
        let boxes = try (0..<64).map { try Sealer.seal(Array("note \($0)".utf8), key: key, ad: ad) }
        let failures = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for round in 0..<200 {
                let index = (worker * 7 + round) % boxes.count
                if opener.open(boxes[index], ad: ad) != Array("note \(index)".utf8) { failures.add(1, ordering: .relaxed) }
            }
        }
        #expect(failures.load(ordering: .relaxed) == 0)
    }
}

@Suite("Note tally MAC (one BoringSSL HMAC context per scan worker)", .timed)
struct NoteTallyMACTests {
    @Test("equals TallyHasher.note for every id length and revision, message after message")
    func equalsTallyHasher() {
        let key = SymmetricKey(size: .bits256)
        let hasher = TallyHasher(key: key)
        let mac = NoteTallyMAC(key: key)
        let ids = ["", "a", UUID().uuidString.lowercased(), String(repeating: "x", count: 51), String(repeating: "é", count: 200)]
        for id in ids {
            for revision: UInt64 in [0, 1, 2, 1 << 40, .max] {
                #expect(mac.note(id, revision: revision) == hasher.note(id, revision: revision), "\(id.count) \(revision)")
            }
        }
        #expect(NoteTallyMAC(key: SymmetricKey(size: .bits256)).note("a", revision: 1) != hasher.note("a", revision: 1))
    }
}

@Suite("Note associated data (built on the stack for scans)", .timed)
struct NoteAssociatedDataTests {
    @Test("header and body associated data equal the key hierarchy's encoding, and open what sealing sealed")
    func equalsReference() throws {
        let keys = KeyHierarchy(master: KeyHierarchy.randomMaster(), storeID: UUID())
        for id in ["", UUID().uuidString.lowercased(), String(repeating: "é", count: 70)] {
            for revision: UInt64 in [1, 2, .max] {
                #expect(
                    NoteSealing.headerAD(keys, id: id, revision: revision)
                        == keys.associatedData("note-header", [Array(id.utf8)], revision: revision))
                #expect(
                    NoteSealing.bodyAD(keys, id: id, revision: revision)
                        == keys.associatedData("note-body", [Array(id.utf8)], revision: revision))
            }
        }
        let stamp = Date(timeIntervalSinceReferenceDate: 700_000_000)
        let note = Note(title: "t", body: "the body", tags: ["a"], created: stamp, modified: stamp)
        let id = note.id.storageKey
        let header = try NoteSealing.sealHeader(note, keys: keys, revision: 3)
        #expect(try NoteSealing.openHeader(header, keys: keys, id: id, revision: 3) == note.summary)
        #expect(throws: VaultError.self) { try NoteSealing.openHeader(header, keys: keys, id: id, revision: 4) }
        let body = try NoteSealing.sealBody(note, keys: keys, revision: 3)
        #expect(try NoteSealing.withOpenedBody(body, keys: keys, id: id, revision: 3) { Array($0) } == Array("the body".utf8))
        #expect(throws: VaultError.self) {
            try NoteSealing.withOpenedBody(body, keys: keys, id: id, revision: 2) { _ in true }
        }
    }
}

@Suite("Note ids as stored", .timed)
struct StorageKeyTests {
    @Test("the stored form parses back to the same id; anything else is refused")
    func roundTrip() {
        for _ in 0..<200 {
            let id = UUID()
            #expect(UUID(storageKey: id.storageKey) == id)
        }
        let valid = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"
        #expect(UUID(storageKey: valid) == UUID(uuidString: valid))
        #expect(UUID(storageKey: "00000000-0000-0000-0000-000000000000") == UUID(uuidString: "00000000-0000-0000-0000-000000000000"))
        #expect(UUID(storageKey: "ffffffff-ffff-ffff-ffff-ffffffffffff") == UUID(uuidString: "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF"))
        for bad in [
            "", valid.uppercased(), String(valid.dropLast()), valid + "0", valid.replacingOccurrences(of: "-", with: "0"),
            "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1fg", "0f1e2d3c-4b5a-6978-8796+a5b4c3d2e1f0", "0f1e2d3c04b5a-6978-8796-a5b4c3d2e1f0",
            "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1/0", "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1:0", "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1`0",
            "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1é",
        ] {
            #expect(UUID(storageKey: bad) == nil, "\(bad)")
        }
    }
}
