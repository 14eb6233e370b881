public import Fingerprint

/// What a reader's answer "not in my storage" to a touch (``ScanResult/notInReaderStorage``,
/// libfprint's DATA_NOT_FOUND) says about the prints the touch was matched against; the rule both
/// modes host.
///
/// A reader says it for a finger that is simply not stored (a real no-match) and for a print the chip
/// lost (wiped by another program, a firmware update, a storage clear). Touches of a lost print can
/// never match, so counting them would lock the user out for a finger that is right. Where the reader
/// can list its storage, the list tells the two apart. Where it cannot (synaptics), a verify names
/// its one print to the chip, so "not in my storage" is about that very print: it is gone. An
/// identify among several names none, so it stays a counted no-match.
public struct LostPrints: Sendable, Equatable {
    /// What else is known of the reader's storage.
    public enum Storage: Sendable, Equatable {
        /// The reader's list, read to the end, still holds these prints of the scan.
        case listed(stillStored: [EnrolledPrint])
        /// The reader can list, but the listing failed or was interrupted: nothing is known.
        case unknown
        /// The reader cannot list its storage.
        case unlisted
    }

    /// The prints the touch was matched against.
    public let scanned: [EnrolledPrint]
    /// Those of them the reader no longer holds.
    public let prints: [EnrolledPrint]

    public init(scanned: [EnrolledPrint], storage: Storage) {
        self.scanned = scanned
        switch storage {
        case .listed(let stillStored):
            prints = scanned.filter { !stillStored.contains($0) }
        case .unknown:
            prints = []
        case .unlisted:
            prints = scanned.count == 1 ? scanned : []
        }
    }

    /// Asks `reader` for its list where it has one.
    public static func find(scanned: [EnrolledPrint], on reader: any FingerprintReader) async -> LostPrints {
        guard reader.info.features.contains(.storageList) else {
            return LostPrints(scanned: scanned, storage: .unlisted)
        }
        guard let stored = try? await reader.storedPrints(known: scanned) else {
            return LostPrints(scanned: scanned, storage: .unknown)
        }
        return LostPrints(scanned: scanned, storage: .listed(stillStored: stored.compactMap(\.known)))
    }

    /// Every print of the scan is gone: no finger could have matched, so the touch is no failed one.
    public var noneLeft: Bool { !prints.isEmpty && prints.count == scanned.count }

    /// Says which prints `reader` lost and how to get them back ("" when none).
    public func sentence(on reader: ReaderIdentity) -> String {
        guard !prints.isEmpty else { return "" }
        let fingers = prints.map(\.finger.rawValue)
        let names = fingers.count == 1 ? "The \(fingers[0]) print is" : "The \(fingers.joined(separator: ", ")) prints are"
        let command = prints.count == 1 ? "`fingerlock enroll \(fingers[0])`" : "`fingerlock enroll FINGER` for each"
        return "\(names) no longer stored on \(reader) (another program, a firmware update or a"
            + " storage clear removed it); enroll it again with \(command)."
    }
}
