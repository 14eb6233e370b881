import Crypto
public import Fingerprint
public import FoundationEssentials

/// The username fingerlock gives the prints it enrolls, so that on a shared chip they can be told
/// from fprintd's and from another vault's: `fl:<vault tag>:<user>`. A colon never appears in a Unix
/// user name, so no fprintd print looks like this.
///
/// Drivers store libfprint's user id, `FP1-<date>-<finger>-<random>-` (24 bytes) then this label, and
/// match a touch by comparing the id they read back from the chip with the enrolled print's. goodixmoc
/// reads back at most 56 bytes (its template payload) although it writes up to 100: a longer id never
/// equals the enrolled one, so every touch is a no-match. So a label never exceeds the 32 bytes left
/// (``maximumBytes``): a user name too long for that is replaced by a fixed-length hash of it,
/// `fl:<vault tag>::<hash>` (the empty field marks the hash, since no user name is empty or has a colon).
public enum PrintLabel {
    static let prefix = "fl:"

    /// The most of a user id every libfprint driver with on-chip storage reads back intact (goodixmoc;
    /// fpcmoc keeps 68, elanmoc 92, synaptics 100).
    static let readBackBytes = 56
    /// libfprint's `FP1-YYYYMMDD-F-RRRRRRRR-` in front of the label.
    static let userIDHeadBytes = 24
    /// The longest label fingerlock writes.
    public static let maximumBytes = readBackBytes - userIDHeadBytes
    /// `fl:` and the 8-character tag with its colons.
    static let headBytes = prefix.utf8.count + 9
    /// Hex digits of the hash that stands for a user name too long to keep.
    static let hashDigits = 16

    /// The vault's tag: the start of its store id, which is not a secret.
    public static func tag(storeID: UUID) -> String {
        String(storeID.uuidString.lowercased().prefix(8))
    }

    /// The username for a print enrolled by `user` in the vault `storeID`: the user's name when it fits
    /// in ``maximumBytes``, otherwise a hash of it.
    public static func username(user: String, storeID: UUID) -> String {
        let head = "\(prefix)\(tag(storeID: storeID)):"
        if head.utf8.count + user.utf8.count <= maximumBytes && !user.isEmpty && !user.contains(":") {
            return head + user
        }
        return head + ":" + hash(of: user)
    }

    /// A fixed-length stand-in for `user`: the start of the SHA-256 of its UTF-8 bytes, in hex.
    static func hash(of user: String) -> String {
        let digest = SHA256.hash(data: Data(user.utf8))
        return String(digest.flatMap { [$0 >> 4, $0 & 0x0f] }.prefix(hashDigits).map { Character(String($0, radix: 16)) })
    }

    /// Who `print` belongs to, given this vault's tag. Only a sealed print is this vault's: a label
    /// is whatever the enrolling program wrote, so it never makes a print this vault's own. Labels
    /// with a name and with a hash (and older, longer ones) are read alike: only the tag decides.
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

    /// The user behind a fingerlock label, or the username itself for a foreign print; nil when the
    /// label carries a hash in place of the name (or nothing).
    public static func user(of print: StoredPrint) -> String? {
        guard let username = print.username else { return nil }
        guard username.hasPrefix(prefix) else { return username }
        let parts = username.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[2].isEmpty, !parts[2].hasPrefix(":") else { return nil }
        return String(parts[2])
    }
}
