import FingerlockTestSupport
import Foundation
import NoteSync
import Synchronization
import Testing
import Vault

@Suite("Compaction", .timed)
struct SyncCompactionTests {
    @Test func aCompactedRemoteHoldsOneSnapshotAndANewMachineJoinsFromIt() throws {
        let remote = MemoryRemote()
        let network = Network(remote: remote)
        let a = try network.first("a", notes: [("one", "1"), ("two", "2"), ("three", "3")])
        let b = try network.join("b")
        for round in 0..<5 {
            try a.edit("one") { $0.body = "1 round \(round)" }
            try a.sync()
            try b.sync()
        }
        let gone = try #require(try b.note(titled: "three"))
        try b.vault.trashNotes([gone.id])
        try b.sync()
        try a.sync()
        let before = remote.recordPaths.count
        let report = try a.engine.compact()
        #expect(report.records == before)
        #expect(report.tombstones == 1)
        #expect(remote.recordPaths.isEmpty)
        #expect(remote.files["snapshot"] != nil)
        let c = try network.join("c")
        #expect(try c.contents() == a.contents())
        #expect(try c.note(titled: "three") == nil)
        // Syncing goes on after it, on every machine.
        try c.edit("two") { $0.body = "2 from c" }
        try c.sync()
        try b.sync()
        try a.sync()
        #expect(try a.contents() == c.contents())
        #expect(try b.contents() == c.contents())
    }

    @Test func aMachineOfflineAcrossACompactionKeepsDeletedNotesDeletedAndLosesNothing() throws {
        let remote = MemoryRemote()
        let network = Network(remote: remote)
        let a = try network.first("a", notes: [("kept", "k"), ("deleted", "d"), ("edited offline", "e")])
        let b = try network.join("b")
        // b goes offline; a deletes one note, changes another, compacts.
        let deleted = try #require(try a.note(titled: "deleted"))
        try a.vault.trashNotes([deleted.id])
        try a.edit("kept") { $0.body = "k2" }
        try a.sync()
        try a.engine.compact()
        // Meanwhile b edited a note offline.
        try b.edit("edited offline") { $0.body = "e by b" }
        try b.sync()
        try a.sync()
        #expect(try b.note(titled: "deleted") == nil)
        #expect(try b.note(titled: "kept")?.body == "k2")
        #expect(try a.note(titled: "edited offline")?.body == "e by b")
        #expect(try a.contents() == b.contents())
    }

    @Test func anOlderSnapshotPutBackIsRefused() throws {
        let remote = MemoryRemote()
        let network = Network(remote: remote)
        let a = try network.first("a", notes: [("n", "1")])
        let b = try network.join("b")
        try a.engine.compact()
        let older = remote.files
        try a.edit("n") { $0.body = "2" }
        try a.sync()
        try a.engine.compact()
        try b.sync()
        #expect(try b.note(titled: "n")?.body == "2")
        remote.files = older
        expectSyncError(.rewound) { try b.sync() }
    }

    @Test func aSnapshotSwappedUnderItsMarksIsRefused() throws {
        let remote = MemoryRemote()
        let network = Network(remote: remote)
        let a = try network.first("a", notes: [("n", "1")])
        let b = try network.join("b")
        try a.engine.compact()
        let older = try #require(remote.files["snapshot"])
        try a.edit("n") { $0.body = "2" }
        try a.sync()
        try a.engine.compact()
        // b is behind the new snapshot and must open it: it gets the old one under the new marks.
        var files = remote.files
        files["snapshot"] = older
        remote.files = files
        let error = expectSyncError(.tampered) { try b.sync() }
        #expect(error?.message.contains("not the one its marks name") == true)
        files["snapshot.marks"] = nil
        remote.files = files
        expectSyncError(.tampered) { try b.sync() }
        #expect(try b.note(titled: "n")?.body == "1")
    }

    @Test func aChangeStillInTheOutboxSurvivesTakingASnapshot() throws {
        let remote = MemoryRemote()
        let network = Network(remote: remote)
        let a = try network.first("a", notes: [("x", "1"), ("y", "1")])
        let b = try network.join("b")
        let c = try network.join("c")
        try a.sync()
        // a's edit of x stays in its outbox: its push fails.
        try a.edit("x") { $0.body = "2 from a" }
        remote.beforePublish.withLock { $0 = { () throws(SyncError) in throw SyncError(.git, "offline") } }
        expectSyncError(.git) { try a.sync() }
        remote.beforePublish.withLock { $0 = nil }
        // Meanwhile c changes y, and b compacts what it has.
        try c.edit("y") { $0.body = "2 from c" }
        try c.sync()
        try b.sync()
        try b.engine.compact()
        // a is behind the snapshot (c's change): taking it must not undo a's own edit.
        try a.sync()
        #expect(try a.note(titled: "x")?.body == "2 from a")
        #expect(try a.note(titled: "y")?.body == "2 from c")
        try b.sync()
        try c.sync()
        #expect(try b.contents() == a.contents())
        #expect(try c.contents() == a.contents())
    }
}
