public import Fingerprint
public import Foundation

/// Whose a print on a reader's own storage is. Match-on-chip readers keep every program's prints on
/// one chip: fingerlock's (of this vault or another) next to fprintd's, which may be the desktop login.
public enum StoredPrintOwner: Sendable, Equatable {
    /// One of this vault's sealed prints.
    case thisVault(Finger)
    /// Labelled with this vault's tag but not sealed in it: left on the chip by an interrupted
    /// enrollment or a `forget` that could not reach the reader. Nothing uses it.
    case leftOver
    /// Enrolled by fingerlock for another vault; `tag` names that vault when the reader kept it.
    case otherVault(tag: String?)
    /// Enrolled by something else (fprintd, a vendor tool); `username` when the print carries one.
    case foreign(username: String?)

    /// Stable names for `storage list --json`.
    public var kind: String {
        switch self {
        case .thisVault: "this-vault"
        case .leftOver: "left-over"
        case .otherVault: "other-vault"
        case .foreign: "foreign"
        }
    }
}

/// The username fingerlock gives the prints it enrolls, so that on a shared chip they can be told
/// from fprintd's and from another vault's: `fl:<vault tag>:<user>`. A colon never appears in a Unix
/// user name, so no fprintd print looks like this. Drivers keep the user id
/// (`FP1-date-finger-random-`, 24 bytes, then this) in 68 (fpcmoc) to 100 bytes (synaptics,
/// goodixmoc), so the marker comes first and survives a cut.
public enum PrintLabel {
    static let prefix = "fl:"

    /// The vault's tag: the start of its store id, which is not a secret.
    public static func tag(storeID: UUID) -> String {
        String(storeID.uuidString.lowercased().prefix(8))
    }

    /// The username for a print enrolled by `user` in the vault `storeID`.
    public static func username(user: String, storeID: UUID) -> String {
        "\(prefix)\(tag(storeID: storeID)):\(user)"
    }

    /// Who `print` belongs to, given this vault's tag. Only a sealed print is this vault's: a label
    /// is whatever the enrolling program wrote, so it never makes a print this vault's own.
    public static func owner(of print: StoredPrint, ourTag: String) -> StoredPrintOwner {
        if let known = print.known { return .thisVault(known.finger) }
        guard let username = print.username, username.hasPrefix(prefix) else {
            return .foreign(username: print.username)
        }
        // A short chip may have cut the tag off; then the vault is unknown.
        let tag = username.dropFirst(prefix.count).prefix { $0 != ":" }
        let complete = tag.count == 8 && tag.allSatisfy { $0.isASCII && $0.isHexDigit }
        if complete && tag == ourTag { return .leftOver }
        return .otherVault(tag: complete ? String(tag) : nil)
    }

    /// The user behind a fingerlock label, or the username itself for a foreign print.
    public static func user(of print: StoredPrint) -> String? {
        guard let username = print.username else { return nil }
        guard username.hasPrefix(prefix) else { return username }
        let parts = username.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        return parts.count == 3 && !parts[2].isEmpty ? String(parts[2]) : nil
    }
}
