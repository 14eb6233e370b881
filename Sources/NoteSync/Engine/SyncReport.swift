public import Foundation

/// What one sync did, for its one-line summary and `--json`.
public struct SyncReport: Codable, Sendable, Equatable {
    /// Notes that arrived from other machines.
    public var added = 0
    public var changed = 0
    /// Notes moved to the trash here because another machine deleted them.
    public var deleted = 0
    /// Conflict copies made and notes brought back over a deletion, in this sync.
    public var conflicts = 0
    /// Notes of this machine's sent (in records pushed).
    public var sent = 0
    /// Records of other machines applied.
    public var received = 0
    /// Records of removed devices that were not applied.
    public var ignored = 0
    /// Set when this data directory turned out to be a copy of another machine's (a clone or a
    /// restore) and continues as a new device.
    public var continuedAsNewDevice = false
    /// The remote was set up by this sync (`sync init`).
    public var initialized = false

    public init() {}

    mutating func absorb(_ other: SyncReport) {
        added += other.added
        changed += other.changed
        deleted += other.deleted
        conflicts += other.conflicts
        sent += other.sent
        received += other.received
        ignored += other.ignored
        continuedAsNewDevice = continuedAsNewDevice || other.continuedAsNewDevice
    }
}

/// Where sync stands (`sync status`).
public struct SyncStatus: Codable, Sendable, Equatable {
    public var remote: String
    public var device: String
    public var deviceName: String
    /// Notes changed here since the last sync, and records written but not pushed.
    public var ahead: Int
    /// Records of other machines on the remote not yet applied (nil when not fetched).
    public var behind: Int?
    /// Notes marked `sync-conflict`.
    public var conflicts: Int
    public var lastSync: Date?
    /// A sync follows every change (`sync auto on`).
    public var automatic: Bool
    public var devices: [SyncDevice]
}

/// One device as the remote's records show it.
public struct SyncDevice: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var records: UInt64
    public var lastRecord: Date?
    public var thisMachine: Bool
    /// Removed with `sync remove-device`.
    public var removed: Bool
}
