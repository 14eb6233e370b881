import FingerlockTestSupport
import Foundation
import NoteSync
import Synchronization
import Testing
import Vault

@Suite("Joining and working beside a sync", .timed)
struct SyncJoinTests {
    @Test func aMachineJoinsWithAPairingCodeOnceAndTheCodeIsRemoved() throws {
        let remote = MemoryRemote()
        let network = Network(remote: remote)
        let a = try network.first("a", notes: [("n", "secret")])
        let (code, _) = try a.engine.pair()
        #expect(remote.files.keys.contains { $0.hasPrefix("join/pairing/") })
        let pairing = try #require(SyncPairing(parsing: code.uppercased()))
        let key = try pairing.open(from: remote, now: Date())
        let (vault, _) = try Vault.create(
            in: network.dataDirectory("p"), passcode: "p", kind: .test, cost: testCost, joining: key)
        let p = Machine(name: "p", vault: vault, remote: remote, clock: TestClock())
        try p.engine.start(remoteURL: "memory", deviceName: "p", usedPairing: pairing.label)
        #expect(try p.contents() == a.contents())
        #expect(!remote.files.keys.contains { $0.hasPrefix("join/pairing/") })
        // The vault's own recovery key opens the joined copy (its recovery slot came along).
        vault.close()
        _ = try Vault.open(in: network.dataDirectory("p"), using: .recoveryKey(network.recoveryKey.displayString))
        // Used once: gone.
        let again = expectSyncError(.invalidInput) { try pairing.open(from: remote, now: Date()) }
        #expect(again?.message.contains("No pairing with that code") == true)
    }

    @Test func aWrongOrExpiredPairingCodeIsRefused() throws {
        let remote = MemoryRemote()
        let network = Network(remote: remote)
        let a = try network.first("a", notes: [("n", "secret")])
        let (code, expires) = try a.engine.pair()
        let pairing = try #require(SyncPairing(parsing: code))
        // The right label with another secret.
        var wrong = Array(code)
        let last = wrong.count - 1
        wrong[last] = wrong[last] == "a" ? "b" : "a"
        let mistyped = try #require(SyncPairing(parsing: String(wrong)))
        do {
            _ = try mistyped.open(from: remote, now: Date())
            Issue.record("a wrong code opened the pairing")
        } catch let error as VaultError {
            #expect(error.code == .wrongRecoveryKey)
        }
        let late = expectSyncError(.invalidInput) { try pairing.open(from: remote, now: expires.addingTimeInterval(1)) }
        #expect(late?.message.contains("expired") == true)
        #expect(SyncPairing(parsing: "not a code") == nil)
        // An expired pairing is removed by the next sync of a machine already in.
        a.clock.advance(SyncPairing.lifetime + 60)
        try a.sync()
        #expect(!remote.files.keys.contains { $0.hasPrefix("join/pairing/") })
    }

    @Test func aWrongRecoveryKeyDoesNotOpenTheRemotesSlot() throws {
        let remote = MemoryRemote()
        let network = Network(remote: remote)
        _ = try network.first("a", notes: [("n", "x")])
        let info = try SyncEngine.joinInformation(from: remote)
        do {
            _ = try Vault.joinKey(recoverySlot: info.recoverySlot, storeID: info.storeID, recoveryKey: RecoveryKey.generate())
            Issue.record("another recovery key opened the slot")
        } catch {
            #expect(error.code == .wrongRecoveryKey)
        }
    }

    @Test func aNoteChangedHereWhileSyncRunsIsNeverOverwritten() throws {
        let remote = MemoryRemote()
        let network = Network(remote: remote)
        let a = try network.first("a", notes: [("n", "1\n2\n3")])
        let b = try network.join("b")
        try a.edit("n") { $0.body = "one\n2\n3" }
        try a.sync()
        try b.edit("n") { $0.body = "1\n2\nthree" }
        // While b's sync merges (reading the versions it needs), a local command saves the note again.
        let edited = Mutex(false)
        let note = try #require(try b.note(titled: "n"))
        remote.beforeRead.withLock { hook in
            hook = { paths in
                // The read of the version b last synced (the merge base), after b read its own notes.
                guard paths.contains(where: { $0.hasSuffix("0000000001.rec") }), !edited.withLock({ $0 }) else { return }
                edited.withLock { $0 = true }
                _ = try? b.vault.update(id: note.id) { (note: inout Note) throws(VaultError) in note.body += "\nlocal" }
            }
        }
        let error = #expect(throws: VaultError.self) { try b.sync() }
        #expect(error?.code == .busy)
        #expect(edited.withLock { $0 })
        remote.beforeRead.withLock { $0 = nil }
        try b.sync()
        try a.sync()
        #expect(try a.note(titled: "n")?.body == "one\n2\nthree\nlocal")
        #expect(try a.contents() == b.contents())
    }
}

@Suite("Removing a device", .timed)
struct SyncRemoveDeviceTests {
    @Test func aRemovedDeviceStopsAndItsLaterRecordsAreAppliedNowhere() throws {
        let remote = MemoryRemote()
        let network = Network(remote: remote)
        let a = try network.first("a", notes: [("n", "1")])
        let b = try network.join("b")
        let c = try network.join("c")
        let cDevice = try c.engine.status(fetch: true).device
        try a.sync()
        // c pushes a change just as a removes it: a's push goes second.
        try c.edit("n") { $0.body = "from c, after the removal" }
        remote.beforePublish.withLock { hook in
            hook = {
                remote.beforePublish.withLock { $0 = nil }
                _ = try? c.sync()
            }
        }
        let (removed, report) = try a.engine.removeDevice(String(cDevice.prefix(8)))
        #expect(removed.uuidString.lowercased() == cDevice)
        #expect(report.ignored == 1)
        try b.sync()
        #expect(try a.note(titled: "n")?.body == "1")
        #expect(try b.note(titled: "n")?.body == "1")
        let refused = expectSyncError(.notSetUp) { try c.sync() }
        #expect(refused?.message.contains("removed this one") == true)
        #expect(try a.engine.status(fetch: true).devices.first { $0.id == cDevice }?.removed == true)
        expectSyncError(.invalidInput) { try a.engine.removeDevice(String(cDevice.prefix(8))) }
        // A machine cannot remove itself, nor a device nobody has heard of.
        expectSyncError(.invalidInput) { try b.engine.removeDevice(try b.engine.status(fetch: false).device) }
        expectSyncError(.invalidInput) { try b.engine.removeDevice("ffffffff") }
    }
}
