import FingerlockTestSupport
import Foundation
import NoteSync
import Synchronization
import Testing
import Vault

@Suite("Sync between machines (in-memory remote)", .timed)
struct SyncEngineTests {
    @Test func aJoiningMachineGetsEveryNoteAndNoPasscodeSlotTravels() throws {
        let remote = MemoryRemote()
        let network = Network(remote: remote)
        let a = try network.first("a", notes: [("bank", "pin 1"), ("mail", "pw 2")])
        let b = try network.join("b")
        #expect(try b.contents() == a.contents())
        // Only the format file, the recovery slot and sealed records are there.
        let files = remote.files
        #expect(files.keys.allSatisfy { $0 == "fingerlock-sync" || $0 == "join/recovery" || $0.hasPrefix("devices/") })
        for (path, data) in files where path.hasPrefix("devices/") {
            #expect(data.range(of: Data("pin 1".utf8)) == nil, "plaintext in \(path)")
            #expect(data.range(of: Data("bank".utf8)) == nil, "plaintext in \(path)")
        }
    }

    @Test func editsOfDifferentNotesAndFieldsAndLinesAllArrive() throws {
        let network = Network(remote: MemoryRemote())
        let a = try network.first("a", notes: [("one", "1"), ("two", "l1\nl2\nl3"), ("three", "x")])
        let b = try network.join("b")
        try a.edit("one") { $0.body = "1 from a" }
        try b.edit("three") { $0.tags = ["b-tag"] }
        try a.edit("two") { $0.body = "L1\nl2\nl3" }
        try b.edit("two") { $0.body = "l1\nl2\nL3" }
        let fromA = try a.sync()
        #expect(fromA.sent == 2)
        let fromB = try b.sync()
        #expect(fromB.changed == 2)
        try a.sync()
        #expect(try a.contents() == b.contents())
        #expect(try a.note(titled: "two")?.body == "L1\nl2\nL3")
        #expect(try a.note(titled: "three")?.tags == ["b-tag"])
        #expect(try a.note(titled: "one")?.body == "1 from a")
        #expect(try a.vault.list(tag: "sync-conflict").isEmpty)
    }

    @Test func theSameLineChangedOnTwoMachinesKeepsBothAndMarksTheCopy() throws {
        let network = Network(remote: MemoryRemote())
        let a = try network.first("a", notes: [("wifi", "password: old")])
        let b = try network.join("b")
        try a.edit("wifi") { $0.body = "password: from-a" }
        try b.edit("wifi") { $0.body = "password: from-b" }
        try a.sync()
        let report = try b.sync()
        #expect(report.conflicts == 1)
        try a.sync()
        #expect(try a.contents() == b.contents())
        let bodies = try a.vault.allNotes().map(\.body).sorted()
        #expect(bodies == ["password: from-a", "password: from-b"])
        let copies = try a.vault.list(tag: "sync-conflict")
        #expect(copies.count == 1)
        #expect(copies.first?.title == "wifi (conflict)")
    }

    @Test func anEditMadeWithoutSeeingADeleteBringsTheNoteBackMarked() throws {
        let network = Network(remote: MemoryRemote())
        let a = try network.first("a", notes: [("keep", "k"), ("shared", "v1")])
        let b = try network.join("b")
        let shared = try #require(try a.note(titled: "shared"))
        try a.vault.trashNotes([shared.id])
        try b.edit("shared") { $0.body = "v2 by b" }
        try a.sync()
        try b.sync()
        try a.sync()
        #expect(try a.contents() == b.contents())
        let back = try #require(try a.note(titled: "shared"))
        #expect(back.body == "v2 by b")
        #expect(back.tags.contains("sync-conflict"))
    }

    @Test func aDeleteOfAnUnchangedNoteTravelsToTheTrashElsewhere() throws {
        let network = Network(remote: MemoryRemote())
        let a = try network.first("a", notes: [("gone", "g"), ("stays", "s")])
        let b = try network.join("b")
        let gone = try #require(try a.note(titled: "gone"))
        try a.vault.trashNotes([gone.id])
        try a.sync()
        let report = try b.sync()
        #expect(report.deleted == 1)
        #expect(try b.note(titled: "gone") == nil)
        // Nothing is lost: the note waits in b's trash.
        #expect(try b.vault.trash().map(\.title) == ["gone"])
        // And an edit after the delete was seen does not bring it back anywhere.
        try b.sync()
        try a.sync()
        #expect(try a.contents() == b.contents())
    }

    @Test func aPullThatWouldDeleteMostNotesStopsAndAsks() throws {
        let network = Network(remote: MemoryRemote())
        let a = try network.first("a", notes: (0..<10).map { ("n\($0)", "body \($0)") })
        let b = try network.join("b")
        try a.vault.trashNotes(try a.vault.allNotes().prefix(8).map(\.id))
        try a.sync()
        let error = expectSyncError(.massDeletion) { try b.sync() }
        #expect(error?.message.contains("8 of your 10 notes") == true)
        #expect(try b.vault.noteCount() == 10)
        let report = try b.sync(allowDeletions: true)
        #expect(report.deleted == 8)
        #expect(try b.contents() == a.contents())
    }

    @Test func offlineEditsOnThreeMachinesConverge() throws {
        let network = Network(remote: MemoryRemote())
        let a = try network.first("a", notes: [("x", "1\n2\n3\n4\n5")])
        let b = try network.join("b")
        let c = try network.join("c")
        try a.edit("x") { $0.body = "ONE\n2\n3\n4\n5" }
        try b.edit("x") { $0.body = "1\n2\nTHREE\n4\n5" }
        try c.edit("x") { $0.body = "1\n2\n3\n4\nFIVE" }
        _ = try c.vault.add(title: "from c", body: "new")
        for machine in [c, b, a, c, b, a] { try machine.sync() }
        #expect(try a.contents() == b.contents())
        #expect(try b.contents() == c.contents())
        #expect(try a.note(titled: "x")?.body == "ONE\n2\nTHREE\n4\nFIVE")
    }

    @Test func aPushRefusedBecauseAnotherMachinePushedFirstIsRetried() throws {
        let remote = MemoryRemote()
        let network = Network(remote: remote)
        let a = try network.first("a", notes: [("n", "1")])
        let b = try network.join("b")
        try a.edit("n") { $0.title = "n by a" }
        try b.edit("n") { $0.body = "2 by b" }
        // b pushes first, in the middle of a's sync.
        remote.beforePublish.withLock { hook in
            hook = {
                remote.beforePublish.withLock { $0 = nil }
                _ = try? b.sync()
            }
        }
        try a.sync()
        try b.sync()
        #expect(try a.contents() == b.contents())
        #expect(try a.note(titled: "n by a")?.body == "2 by b")
    }

    @Test func aSyncStoppedBeforeThePushSendsItsRecordNextTime() throws {
        let remote = MemoryRemote()
        let network = Network(remote: remote)
        let a = try network.first("a", notes: [("n", "1")])
        let b = try network.join("b")
        try a.edit("n") { $0.body = "2" }
        remote.beforePublish.withLock { $0 = { () throws(SyncError) in throw SyncError(.git, "unreachable") } }
        expectSyncError(.git) { try a.sync() }
        remote.beforePublish.withLock { $0 = nil }
        // The edit is in a's outbox: the next sync sends it, once.
        let report = try a.sync()
        #expect(report.sent == 0)
        try b.sync()
        #expect(try b.note(titled: "n")?.body == "2")
    }

    @Test func aSyncThatDiesAfterItsPushLandedSendsNothingTwice() throws {
        let remote = MemoryRemote()
        let network = Network(remote: remote)
        let a = try network.first("a", notes: [("n", "1")])
        let b = try network.join("b")
        try a.edit("n") { $0.body = "2" }
        remote.afterPublish.withLock { $0 = { () throws(SyncError) in throw SyncError(.git, "the connection dropped") } }
        expectSyncError(.git) { try a.sync() }
        remote.afterPublish.withLock { $0 = nil }
        let recordsBefore = remote.recordPaths.count
        let report = try a.sync()
        #expect(report.sent == 0)
        #expect(!report.continuedAsNewDevice)
        #expect(remote.recordPaths.count == recordsBefore)
        try b.sync()
        #expect(try b.note(titled: "n")?.body == "2")
        #expect(try a.engine.status(fetch: true).ahead == 0)
    }
}
