public import Foundation

/// One batch of changes one device made in one sync: the file that travels, sealed (see
/// `RecordSealing`), named by its device and sequence. Records are only ever added to the remote,
/// so git never has to merge one.
public struct ChangeRecord: Codable, Sendable, Equatable {
    public var device: UUID
    public var sequence: UInt64
    /// The device's name when it wrote this (the name `sync devices` shows).
    public var deviceName: String
    /// What the writer had applied from each device (itself included) when it wrote this record:
    /// a record is applied only after those, so every machine applies a device's changes after
    /// the changes they were based on, and a remote that dropped one is noticed.
    public var seen: [UUID: UInt64]
    public var written: Date
    public var changes: [NoteChange]
    /// Devices this one removed from sync (`sync remove-device`), each with the last of its
    /// records that still counts: later ones are not applied anywhere.
    public var removed: [UUID: UInt64]?

    public init(
        device: UUID, sequence: UInt64, deviceName: String, seen: [UUID: UInt64], written: Date, changes: [NoteChange],
        removed: [UUID: UInt64]? = nil
    ) {
        self.device = device
        self.sequence = sequence
        self.deviceName = deviceName
        self.seen = seen
        self.written = written
        self.changes = changes
        self.removed = removed
    }

    public var version: VersionID { VersionID(device: device, sequence: sequence) }
}

/// One note's new version in a record.
public struct NoteChange: Codable, Sendable, Equatable {
    public var id: UUID
    /// The versions this one was based on (it supersedes them): none for a new note, several for a merge.
    public var parents: [VersionID]
    public var state: NoteState

    public init(id: UUID, parents: [VersionID], state: NoteState) {
        self.id = id
        self.parents = parents
        self.state = state
    }

    enum CodingKeys: String, CodingKey {
        case id = "i"
        case parents = "p"
        case state = "s"
    }
}
