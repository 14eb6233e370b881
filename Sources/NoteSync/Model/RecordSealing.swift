public import Crypto
public import Foundation

/// Seals a change record for the remote: AES-256-GCM under the vault's sync record key, the
/// associated data naming the store, the device and the sequence. A record moved to another name,
/// copied from another vault, changed, or replayed under a later sequence does not open.
public struct RecordSealing: Sendable {
    let key: SymmetricKey
    let storeID: UUID

    public init(key: SymmetricKey, storeID: UUID) {
        self.key = key
        self.storeID = storeID
    }

    private func associatedData(_ version: VersionID) -> Data {
        var data = Data("fingerlock/sync-record/1".utf8)
        withUnsafeBytes(of: storeID.uuid) { data.append(contentsOf: $0) }
        withUnsafeBytes(of: version.device.uuid) { data.append(contentsOf: $0) }
        withUnsafeBytes(of: version.sequence.littleEndian) { data.append(contentsOf: $0) }
        return data
    }

    public func seal(_ record: ChangeRecord) throws -> Data {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        let plain = try encoder.encode(record)
        guard let combined = try AES.GCM.seal(plain, using: key, authenticating: associatedData(record.version)).combined else {
            throw SyncError(.io, "Could not seal a change record.")
        }
        return combined
    }

    /// The record at `path`, or `.tampered` naming it.
    public func open(_ sealed: Data, as version: VersionID) throws(SyncError) -> ChangeRecord {
        let path = RemoteLayout.recordPath(version)
        guard let box = try? AES.GCM.SealedBox(combined: sealed),
            let plain = try? AES.GCM.open(box, using: key, authenticating: associatedData(version))
        else {
            throw SyncError(
                .tampered,
                "The remote's \(path) does not open with this vault's key: it was changed, moved, or comes from another vault. Nothing was applied."
            )
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        guard let record = try? decoder.decode(ChangeRecord.self, from: plain), record.version == version else {
            throw SyncError(.tampered, "The remote's \(path) opens but is not a record of that name. Nothing was applied.")
        }
        return record
    }
}
