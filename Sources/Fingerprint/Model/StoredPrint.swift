import Crypto
public import FoundationEssentials

/// A print kept in a reader's own storage (match-on-chip), as the reader lists it: whoever enrolled it.
///
/// Drivers store fprintd's user id (`FP1-date-finger-random-username`) with each print and rebuild
/// the finger, username and date from it when listing, so a print enrolled by fprintd carries its
/// user's name. Fields the reader did not record are nil.
public struct StoredPrint: Sendable, Hashable {
    public var reader: ReaderIdentity
    public var finger: Finger?
    public var username: String?
    /// The day it was enrolled (that day's midnight, UTC: readers record a day, not a time), when recorded.
    public var enrolled: Date?
    /// The listed print, serialized: what deleting it hands back to the reader.
    public var template: Data
    /// The print of the `known` list given to ``FingerprintReader/storedPrints(known:)`` that is this
    /// same stored print, if any.
    public var known: EnrolledPrint?

    public init(
        reader: ReaderIdentity, finger: Finger?, username: String?, enrolled: Date?, template: Data,
        known: EnrolledPrint? = nil
    ) {
        self.reader = reader
        self.finger = finger
        self.username = username
        self.enrolled = enrolled
        self.template = template
        self.known = known
    }

    /// A short, stable name for the print, to pick it in commands: the start of its template's
    /// SHA-256 (the same stored print lists with the same bytes every time).
    public var id: String {
        SHA256.hash(data: template).prefix(4).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 0x10 ? "0" + hex : hex
        }.joined()
    }
}
