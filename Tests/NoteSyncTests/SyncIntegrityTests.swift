import FingerlockTestSupport
import Foundation
import NoteSync
import Testing
import Vault

/// A remote that drops, alters, replays, mixes in or rewinds records is refused, each with its
/// own message, and nothing is applied.
@Suite("Sync refuses a remote that lies", .timed)
struct SyncIntegrityTests {
    /// Two machines that have exchanged three records of a's; returns them and a's record paths.
    func setUp() throws -> (MemoryRemote, Network, Machine, Machine, [String]) {
        let remote = MemoryRemote()
        let network = Network(remote: remote)
        let a = try network.first("a", notes: [("n", "1")])
        let b = try network.join("b")
        try a.edit("n") { $0.body = "2" }
        try a.sync()
        try a.edit("n") { $0.body = "3" }
        try a.sync()
        return (remote, network, a, b, remote.recordPaths)
    }

    @Test func aRecordRemovedFromTheMiddleIsRefused() throws {
        let (remote, network, a, b, _) = try setUp()
        defer { withExtendedLifetime(network) {} }
        let aDevice = try #require(remote.recordPaths.first { path in path.hasSuffix("0000000003.rec") })
        let middle = aDevice.replacingOccurrences(of: "0000000003.rec", with: "0000000002.rec")
        var files = remote.files
        files[middle] = nil
        remote.files = files
        let error = expectSyncError(.missing) { try b.sync() }
        #expect(error?.message.contains("Record 2 of device") == true)
        #expect(try b.note(titled: "n")?.body == "1")
        _ = a
    }

    @Test func aChangedRecordIsRefused() throws {
        let (remote, network, _, b, _) = try setUp()
        defer { withExtendedLifetime(network) {} }
        let last = try #require(remote.recordPaths.first { $0.hasSuffix("0000000003.rec") })
        var files = remote.files
        var bytes = try #require(files[last])
        bytes[bytes.count / 2] ^= 0x01
        files[last] = bytes
        remote.files = files
        let error = expectSyncError(.tampered) { try b.sync() }
        #expect(error?.message.contains("does not open with this vault's key") == true)
        #expect(try b.note(titled: "n")?.body == "1")
    }

    @Test func aRecordReplayedUnderALaterSequenceIsRefused() throws {
        let (remote, network, _, b, _) = try setUp()
        defer { withExtendedLifetime(network) {} }
        let second = try #require(remote.recordPaths.first { $0.hasSuffix("0000000002.rec") })
        var files = remote.files
        files[second.replacingOccurrences(of: "0000000002.rec", with: "0000000004.rec")] = files[second]
        remote.files = files
        expectSyncError(.tampered) { try b.sync() }
        #expect(try b.note(titled: "n")?.body == "1")
    }

    @Test func aRecordFromAnotherVaultIsRefused() throws {
        let (remote, network, _, b, _) = try setUp()
        defer { withExtendedLifetime(network) {} }
        let other = MemoryRemote()
        let elsewhere = Network(remote: other)
        _ = try elsewhere.first("x", notes: [("foreign", "f")])
        let foreign = try #require(other.recordPaths.first)
        let target = try #require(remote.recordPaths.first { $0.hasSuffix("0000000003.rec") })
        var files = remote.files
        files[target] = other.files[foreign]
        remote.files = files
        expectSyncError(.tampered) { try b.sync() }
        // The other vault's whole repository is refused by its format file.
        let stranger = Machine(name: "b2", vault: b.vault, remote: other, clock: b.clock)
        let error = expectSyncError(.invalidInput) { try stranger.sync() }
        #expect(error?.message.contains("another vault") == true)
    }

    @Test func aRemoteRewoundToAnOlderStateIsRefusedOnEveryMachineThatSawMore() throws {
        let remote = MemoryRemote()
        let network = Network(remote: remote)
        let a = try network.first("a", notes: [("n", "1")])
        let b = try network.join("b")
        let before = remote.files
        try a.edit("n") { $0.body = "2" }
        try a.sync()
        try b.sync()
        #expect(try b.note(titled: "n")?.body == "2")
        remote.files = before  // a forced push of the older history
        let onB = expectSyncError(.rewound) { try b.sync() }
        #expect(onB?.message.contains("went back") == true)
        expectSyncError(.rewound) { try a.sync() }
        #expect(try b.note(titled: "n")?.body == "2")
    }

    @Test func aRemoteHoldingSomeoneElsesFilesIsNotTakenOver() throws {
        let remote = MemoryRemote()
        remote.files = ["src/main.c": Data("int main() {}".utf8)]
        let network = Network(remote: remote)
        do {
            _ = try network.first("a", notes: [("n", "1")])
            Issue.record("sync started in a repository holding other files")
        } catch let error as SyncError {
            #expect(error.code == .invalidInput)
            #expect(error.message.contains("empty repository"))
        }
        #expect(remote.files.keys.sorted() == ["src/main.c"])
    }

    @Test func aHostileFileBesideTheRecordsIsIgnored() throws {
        let (remote, network, a, b, _) = try setUp()
        defer { withExtendedLifetime(network) {} }
        var files = remote.files
        files["devices/README"] = Data("hello".utf8)
        files[".gitattributes"] = Data("* filter=evil\n".utf8)
        remote.files = files
        try b.sync()
        #expect(try b.note(titled: "n")?.body == "3")
        _ = a
    }
}

@Suite("Sync converges", .timed)
struct SyncConvergenceTests {
    /// 1,000 random edits, creations, deletions, tag changes and syncs on three machines with clocks a
    /// day apart, synced in random order: every machine ends with the same notes. Without deletions, every
    /// line any machine wrote is in the notes of every machine (none lost to a merge).
    @Test(arguments: [(1, true), (2, true), (3, false), (4, false)])
    func randomOperationsOnThreeMachinesConverge(seed: UInt64, deletions: Bool) throws {
        var random = SplitMix(seed: seed)
        let network = Network(remote: MemoryRemote())
        let day: TimeInterval = 86_400
        let a = try network.first("a", notes: (0..<5).map { ("note \($0)", "line a\($0)") })
        let b = try network.join("b", clock: TestClock(Date(timeIntervalSince1970: 1_800_000_000 + day), advancingEachReadingBy: 1))
        let c = try network.join("c", clock: TestClock(Date(timeIntervalSince1970: 1_800_000_000 - day), advancingEachReadingBy: 1))
        let machines = [a, b, c]
        var written: Set<String> = []
        for step in 0..<1000 {
            let machine = machines[Int(random.next() % 3)]
            let notes = try machine.vault.allNotes()
            switch random.next() % 10 {
            case 0, 1:
                let line = "new \(machine.name) \(step)"
                written.insert(line)
                try machine.vault.add(title: "n\(step)", body: line)
            case 2 where deletions && !notes.isEmpty:
                let note = notes[Int(random.next() % UInt64(notes.count))]
                if !note.tags.contains("sync-conflict") { try machine.vault.trashNotes([note.id]) }
            case 3...5 where !notes.isEmpty:
                let note = notes[Int(random.next() % UInt64(notes.count))]
                let line = "edit \(machine.name) \(step)"
                written.insert(line)
                try machine.vault.update(id: note.id) { (note: inout Note) throws(VaultError) in
                    var lines = note.body.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                    lines.insert(line, at: Int(random.next() % UInt64(lines.count + 1)))
                    note.body = lines.joined(separator: "\n")
                }
            case 6 where !notes.isEmpty:
                let note = notes[Int(random.next() % UInt64(notes.count))]
                try machine.vault.update(id: note.id) { (note: inout Note) throws(VaultError) in note.tags.append("t\(step % 4)") }
            default:
                try machine.sync(allowDeletions: true)
            }
        }
        for _ in 0..<2 { for machine in machines { try machine.sync(allowDeletions: true) } }
        #expect(try a.contents() == b.contents())
        #expect(try b.contents() == c.contents())
        guard !deletions else { return }
        for machine in machines {
            let everything = try machine.vault.allNotes().map(\.body).joined(separator: "\n")
            for line in written { #expect(everything.contains(line), "\(machine.name) lost: \(line)") }
        }
    }
}

/// A small deterministic generator, so a failing seed can be run again.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
