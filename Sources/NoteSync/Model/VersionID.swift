public import Foundation

/// One version of one note: the device that wrote it and the sequence number of the record that
/// carries it (a note appears at most once per record). Global without coordination, and ordered
/// the same way on every machine, so a merge of the same versions gives the same result everywhere.
public struct VersionID: Codable, Sendable, Hashable, Comparable, CustomStringConvertible {
    public var device: UUID
    public var sequence: UInt64

    public init(device: UUID, sequence: UInt64) {
        self.device = device
        self.sequence = sequence
    }

    public static func < (a: VersionID, b: VersionID) -> Bool {
        (a.device.uuidString, a.sequence) < (b.device.uuidString, b.sequence)
    }

    public var description: String { "\(device.uuidString.lowercased().prefix(8))/\(sequence)" }

    enum CodingKeys: String, CodingKey {
        case device = "d"
        case sequence = "s"
    }
}
