import Crypto
import Foundation

/// What a compaction leaves in place of the records it covers: per device, up to which sequence
/// it covers them, and every note's heads and state at that point, tombstones included (so a
/// machine that was offline across the compaction still sees what was deleted). Sealed like a
/// record; freshness is judged on its marks, never on git's history.
struct SyncSnapshot: Sendable, Equatable {
    /// The device that made it.
    var device: UUID
    var written: Date
    /// Per device, the last sequence it covers.
    var marks: [UUID: UInt64]
    /// Device names as their last covered records gave them.
    var deviceNames: [UUID: String]
    var notes: [SnapshotNote]
    /// Devices removed from sync (see `ChangeRecord.removed`).
    var removed: [UUID: UInt64]?

    struct SnapshotNote: Sendable, Equatable {
        var id: UUID
        var heads: [VersionID]
        var state: NoteState
    }
}

// Encoded compactly: each note's heads name their device by its place in one table of devices,
// not by its 36-character id (a snapshot of 10,000 notes was larger than the records it replaced).
extension SyncSnapshot: Codable {
    enum CodingKeys: String, CodingKey {
        case device, written, marks, deviceNames, notes, removed, devices
    }

    private struct EncodedNote: Codable {
        var i: UUID
        /// Pairs of (index into `devices`, sequence).
        var h: [[UInt64]]
        var s: NoteState
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        device = try container.decode(UUID.self, forKey: .device)
        written = try container.decode(Date.self, forKey: .written)
        marks = try container.decode([UUID: UInt64].self, forKey: .marks)
        deviceNames = try container.decode([UUID: String].self, forKey: .deviceNames)
        removed = try container.decodeIfPresent([UUID: UInt64].self, forKey: .removed)
        let devices = try container.decode([UUID].self, forKey: .devices)
        notes = try container.decode([EncodedNote].self, forKey: .notes).map { note in
            let heads = try note.h.map { pair -> VersionID in
                guard pair.count == 2, pair[0] < UInt64(devices.count) else {
                    throw DecodingError.dataCorruptedError(forKey: .notes, in: container, debugDescription: "a head names no device")
                }
                return VersionID(device: devices[Int(pair[0])], sequence: pair[1])
            }
            return SnapshotNote(id: note.i, heads: heads, state: note.s)
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(device, forKey: .device)
        try container.encode(written, forKey: .written)
        try container.encode(marks, forKey: .marks)
        try container.encode(deviceNames, forKey: .deviceNames)
        try container.encodeIfPresent(removed, forKey: .removed)
        var devices: [UUID] = []
        var index: [UUID: UInt64] = [:]
        let encoded = notes.map { note in
            EncodedNote(
                i: note.id,
                h: note.heads.map { head in
                    if index[head.device] == nil {
                        index[head.device] = UInt64(devices.count)
                        devices.append(head.device)
                    }
                    return [index[head.device]!, head.sequence]
                }, s: note.state)
        }
        try container.encode(devices, forKey: .devices)
        try container.encode(encoded, forKey: .notes)
    }
}

extension RecordSealing {
    private var snapshotAD: Data {
        var data = Data("fingerlock/sync-snapshot/1".utf8)
        withUnsafeBytes(of: storeID.uuid) { data.append(contentsOf: $0) }
        return data
    }

    func seal(_ snapshot: SyncSnapshot) throws -> Data {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        let plain = try encoder.encode(snapshot)
        guard let combined = try AES.GCM.seal(plain, using: key, authenticating: snapshotAD).combined else {
            throw SyncError(.io, "Could not seal a snapshot.")
        }
        return combined
    }

    func openSnapshot(_ sealed: Data) throws(SyncError) -> SyncSnapshot {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        guard let box = try? AES.GCM.SealedBox(combined: sealed),
            let plain = try? AES.GCM.open(box, using: key, authenticating: snapshotAD),
            let snapshot = try? decoder.decode(SyncSnapshot.self, from: plain)
        else {
            throw SyncError(
                .tampered,
                "The remote's \(RemoteLayout.snapshotFile) does not open with this vault's key: it was changed, or comes from another vault. Nothing was applied."
            )
        }
        return snapshot
    }
}

/// What every sync needs of a snapshot, apart from it: per device what it covers, the devices
/// removed, and the digest of the sealed snapshot it goes with. Small, so a sync reads this and
/// opens the snapshot itself only when it must (a machine behind it, a merge base it holds).
struct SnapshotMarks: Codable, Sendable, Equatable {
    var marks: [UUID: UInt64]
    var removed: [UUID: UInt64]?
    /// SHA-256 of the sealed snapshot.
    var digest: Data
    /// Device names as the covered records gave them (for `sync status`).
    var deviceNames: [UUID: String]?
}

extension RecordSealing {
    private var marksAD: Data {
        var data = Data("fingerlock/sync-snapshot-marks/1".utf8)
        withUnsafeBytes(of: storeID.uuid) { data.append(contentsOf: $0) }
        return data
    }

    func seal(_ marks: SnapshotMarks) throws -> Data {
        guard let combined = try AES.GCM.seal(try JSONEncoder().encode(marks), using: key, authenticating: marksAD).combined else {
            throw SyncError(.io, "Could not seal a snapshot's marks.")
        }
        return combined
    }

    func openMarks(_ sealed: Data) throws(SyncError) -> SnapshotMarks {
        guard let box = try? AES.GCM.SealedBox(combined: sealed),
            let plain = try? AES.GCM.open(box, using: key, authenticating: marksAD),
            let marks = try? JSONDecoder().decode(SnapshotMarks.self, from: plain)
        else {
            throw SyncError(
                .tampered,
                "The remote's \(RemoteLayout.snapshotMarksFile) does not open with this vault's key: it was changed, or comes from another vault. Nothing was applied."
            )
        }
        return marks
    }
}
