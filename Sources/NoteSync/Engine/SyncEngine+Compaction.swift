import Crypto
import Foundation
import Vault

/// What a compaction did (`sync compact`).
public struct CompactionReport: Codable, Sendable, Equatable {
    /// Records the snapshot replaced.
    public var records: Int
    /// Notes the snapshot holds, deleted ones (tombstones) included.
    public var notes: Int
    public var tombstones: Int
    /// Bytes of the records replaced, and of the snapshot.
    public var recordBytes: Int
    public var snapshotBytes: Int
}

extension SyncEngine {
    /// `sync compact`: syncs, then replaces the remote's history by one sealed snapshot of every
    /// note's heads and state (tombstones kept), so new machines fetch one file rather than every
    /// record. Pushed with a lease: if another machine pushed meanwhile, it syncs and tries again.
    /// A machine offline across it takes the snapshot on its next sync; deleted notes stay deleted.
    @discardableResult
    public func compact() throws -> CompactionReport {
        let lock = try syncLock()
        defer { withExtendedLifetime(lock) {} }
        for _ in 0..<attempts {
            _ = try syncHoldingLock(allowDeletions: false)
            let state = try loadState()
            let listing = try remote.fetch()
            let storeID = try vault.storeID
            let sealing = RecordSealing(key: try vault.syncRecordKey(), storeID: storeID)
            let sequences = listing.recordSequences
            let previousMarks = try Self.snapshotMarks(listing, remote: remote, sealing: sealing)
            let previous = try SnapshotReader(listing: listing, remote: remote, sealing: sealing, marks: previousMarks).open()
            var marks = previous?.marks ?? [:]
            for (device, present) in sequences { marks[device] = max(marks[device] ?? 0, present.last ?? 0) }
            // Only what this machine has applied can be summed up by it: something arrived since the sync.
            guard marks.allSatisfy({ device, mark in (state.marks[device] ?? 0) >= mark }), state.outbox.isEmpty else { continue }
            if try !vault.syncChanges().changed.isEmpty { continue }
            let store = VersionStore(remote: remote, listing: listing, sealing: sealing)
            if let previous { store.add(previous) }
            let decoder = JSONDecoder()
            let entries = try vault.allSyncEntries()
            let live = try vault.notes(ids: entries.keys)
            var notes: [SyncSnapshot.SnapshotNote] = []
            var tombstones = 0
            for (id, data) in entries.sorted(by: { $0.key.uuidString < $1.key.uuidString }) {
                let heads = try decoder.decode(SyncEntry.self, from: data).heads
                let state: NoteState
                if let note = live[id] {
                    state = NoteState(note)
                } else {
                    state = try heads.first.flatMap { try store.state($0, note: id) } ?? NoteState.tombstone(at: now())
                    tombstones += 1
                }
                notes.append(SyncSnapshot.SnapshotNote(id: id, heads: heads, state: state))
            }
            var names: [UUID: String] = previous?.deviceNames ?? [:]
            let lastPaths = sequences.compactMap { device, present in
                present.last.map { (device, RemoteLayout.recordPath(VersionID(device: device, sequence: $0))) }
            }
            let lastRecords = try remote.read(lastPaths.map(\.1), from: listing)
            for (device, path) in lastPaths {
                if let sealed = lastRecords[path] {
                    names[device] = try sealing.open(sealed, as: VersionID(device: device, sequence: sequences[device]!.last!)).deviceName
                }
            }
            let snapshot = SyncSnapshot(
                device: state.device, written: now(), marks: marks, deviceNames: names, notes: notes, removed: state.removedDevices)
            let sealed = try sealing.seal(snapshot)
            var kept = try remote.read(
                listing.sizes.keys.filter {
                    RemoteLayout.version(inPath: $0) == nil && $0 != RemoteLayout.snapshotFile && $0 != RemoteLayout.snapshotMarksFile
                }, from: listing)
            kept[RemoteLayout.snapshotFile] = sealed
            kept[RemoteLayout.snapshotMarksFile] = try sealing.seal(
                SnapshotMarks(marks: marks, removed: state.removedDevices, digest: Data(SHA256.hash(data: sealed)), deviceNames: names))
            let recordPaths = listing.sizes.keys.filter { RemoteLayout.version(inPath: $0) != nil }
            progress?("Replacing \(recordPaths.count) records by one snapshot")
            let published = try remote.publish(
                RemotePublication(added: kept, message: "fingerlock sync: compaction", replacingHistory: true), onto: listing)
            guard published else { continue }
            return CompactionReport(
                records: recordPaths.count, notes: notes.count, tombstones: tombstones,
                recordBytes: recordPaths.reduce(0) { $0 + (listing.sizes[$1] ?? 0) }, snapshotBytes: sealed.count)
        }
        throw SyncError(.busy, "Other machines kept pushing while this one compacted; run `fingerlock sync compact` again.")
    }
}
