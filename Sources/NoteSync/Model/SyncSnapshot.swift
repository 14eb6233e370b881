import Crypto
import Foundation

/// What a compaction leaves in place of the records it covers: per device, up to which sequence
/// it covers them, and every note's heads and state at that point, tombstones included (so a
/// machine that was offline across the compaction still sees what was deleted). Sealed like a
/// record; freshness is judged on its marks, never on git's history.
struct SyncSnapshot: Codable, Sendable, Equatable {
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

    struct SnapshotNote: Codable, Sendable, Equatable {
        var id: UUID
        var heads: [VersionID]
        var state: NoteState

        enum CodingKeys: String, CodingKey {
            case id = "i"
            case heads = "h"
            case state = "s"
        }
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
