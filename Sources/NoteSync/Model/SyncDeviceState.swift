public import Foundation

/// This machine's side of sync, sealed in its vault: who it is, where the remote is, what it has
/// applied from each device, and the records it wrote and has not yet seen on the remote.
public struct SyncDeviceState: Codable, Sendable, Equatable {
    public var device: UUID
    public var deviceName: String
    public var remote: String
    /// The last sequence this device wrote.
    public var sequence: UInt64 = 0
    /// Per device, the highest sequence applied here (this device's own included).
    public var marks: [UUID: UInt64] = [:]
    /// Records written (and applied here) but not yet on the remote, oldest first: pushed by the
    /// next sync, whatever stopped this one.
    public var outbox: [OutgoingRecord] = []
    public var lastSync: Date?
    /// Sync after every command that changes notes (`sync auto on`).
    public var automatic: Bool?
    /// Devices removed from sync, each with the last of its records that counts.
    public var removedDevices: [UUID: UInt64]?
    /// Removals this machine decided and has not yet put in a record.
    public var pendingRemovals: [UUID: UInt64]?
    /// The pairing this machine joined with, which its next push removes from the remote.
    public var usedPairing: String?

    public init(device: UUID, deviceName: String, remote: String) {
        self.device = device
        self.deviceName = deviceName
        self.remote = remote
    }

    /// The last sequence of this device known to be on the remote.
    public var pushedSequence: UInt64 { sequence - UInt64(outbox.count) }
}

/// A sealed record waiting to be pushed.
public struct OutgoingRecord: Codable, Sendable, Equatable {
    public var sequence: UInt64
    public var sealed: Data
}

extension Dictionary {
    /// nil for an empty dictionary (optional state fields are left out of the encoding then).
    var nilIfEmpty: Self? { isEmpty ? nil : self }
}
