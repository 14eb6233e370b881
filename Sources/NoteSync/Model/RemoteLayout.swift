public import Foundation

/// Where things are in the remote repository. Everything but the format file is sealed; names
/// carry only random ids and sequence numbers.
public enum RemoteLayout {
    /// Plain text: the format and the store id (a random UUID), so a machine can tell a remote of
    /// this vault from another vault's before it opens anything.
    public static let formatFile = "fingerlock-sync"
    /// The recovery slot (see `Vault.sharedRecoverySlot`).
    public static let recoverySlot = "join/recovery"
    public static let pairingFolder = "join/pairing/"
    public static let devicesFolder = "devices/"
    /// The sealed snapshot a compaction leaves (see `SyncSnapshot`).
    public static let snapshotFile = "snapshot"
    /// The snapshot's marks and digest (see `SnapshotMarks`).
    public static let snapshotMarksFile = "snapshot.marks"

    public static func formatText(storeID: UUID) -> String {
        "fingerlock sync 1\nstore \(storeID.uuidString.lowercased())\n"
    }

    /// The store id in a format file, nil if it is not one of ours.
    public static func storeID(inFormat data: Data) -> UUID? {
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
        guard lines.count == 2, lines[0] == "fingerlock sync 1", lines[1].hasPrefix("store ") else { return nil }
        return UUID(uuidString: String(lines[1].dropFirst(6)))
    }

    public static func recordPath(_ version: VersionID) -> String {
        devicesFolder + version.device.uuidString.lowercased() + "/" + String(format: "%010llu", version.sequence) + ".rec"
    }

    /// The device and sequence a record path names; nil for anything else.
    public static func version(inPath path: String) -> VersionID? {
        guard path.hasPrefix(devicesFolder), path.hasSuffix(".rec") else { return nil }
        let parts = path.dropFirst(devicesFolder.count).dropLast(4).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 36, parts[0] == parts[0].lowercased(), parts[1].count == 10,
            let device = UUID(uuidString: String(parts[0])), parts[1].allSatisfy(\.isASCIIDigit),
            let sequence = UInt64(parts[1]), sequence > 0
        else { return nil }
        return VersionID(device: device, sequence: sequence)
    }

    public static func pairingPath(_ label: String) -> String { pairingFolder + label }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
