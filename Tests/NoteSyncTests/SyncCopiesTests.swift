import FingerlockTestSupport
import Foundation
import NoteSync
import Testing
import Vault

/// Data directories that were copied (a VM clone, a home backup) or restored notice records
/// under their device id that they did not write, and go on as a new device; nothing is lost.
@Suite("Copied and restored data directories", .timed)
struct SyncCopiesTests {
    func copy(_ source: String, to target: String) throws {
        try FileManager.default.copyItem(atPath: source, toPath: target)
    }

    @Test func aDataDirectoryClonedOntoTwoMachinesGoesOnAsTwoDevices() throws {
        let remote = MemoryRemote()
        let network = Network(remote: remote)
        let a = try network.first("a", notes: [("n", "1\n2\n3")])
        let b = try network.join("b")
        try copy(network.dataDirectory("b"), to: network.dataDirectory("b-clone"))
        let clone = Machine(
            name: "b-clone",
            vault: try Vault.open(in: network.dataDirectory("b-clone"), using: .passcode("pass-b")),
            remote: remote, clock: TestClock(advancingEachReadingBy: 1))
        try b.edit("n") { $0.body = "ONE\n2\n3" }
        try clone.edit("n") { $0.body = "1\n2\nTHREE" }
        _ = try clone.vault.add(title: "only on the clone", body: "c")
        try b.sync()
        let report = try clone.sync()
        #expect(report.continuedAsNewDevice)
        try b.sync()
        try a.sync()
        #expect(try a.contents() == b.contents())
        #expect(try clone.contents() == b.contents())
        #expect(try a.note(titled: "n")?.body == "ONE\n2\nTHREE")
        #expect(try a.note(titled: "only on the clone") != nil)
        // Three devices have records now.
        #expect(Set(remote.recordPaths.map { $0.split(separator: "/")[1] }).count == 3)
    }

    @Test func aRestoredBackupSendsItsNotesAgainSoADeletionDoesNotWinSilently() throws {
        let remote = MemoryRemote()
        let network = Network(remote: remote)
        let a = try network.first("a", notes: [("keep me", "precious"), ("other", "o")])
        let b = try network.join("b")
        let backup = network.directory + "/b.backup"
        try b.vault.backup(to: backup)
        // After the backup, b syncs on; then a deletes a note.
        try b.edit("other") { $0.body = "o2" }
        try b.sync()
        let precious = try #require(try a.note(titled: "keep me"))
        try a.vault.trashNotes([precious.id])
        try a.sync()
        // b's disk dies; its home is restored from the backup.
        try b.vault.restore(from: backup)
        let report = try b.sync()
        #expect(report.continuedAsNewDevice)
        try a.sync()
        #expect(try a.contents() == b.contents())
        let back = try #require(try a.note(titled: "keep me"))
        #expect(back.tags.contains("sync-conflict"))
        // The change b made after the backup was on the remote: it is not lost either.
        #expect(try a.note(titled: "other")?.body == "o2")
    }
}
