public import FingerlockProtocol
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// One vault of one user: the key of every record the service keeps. The uid comes from the
/// kernel (`PeerCredentials`), the vault id from the client, checked to be a UUID and kept in its
/// lower-case form, so it can name a directory and no two spellings name two records.
public struct VaultOwner: Sendable, Hashable, CustomStringConvertible {
    public let uid: UInt32
    public let vault: String

    public init(uid: UInt32, vault: String) throws(VarlinkError) {
        guard vault.utf8.count == 36, let uuid = UUID(uuidString: vault) else { throw .invalidParameter("vault") }
        self.uid = uid
        self.vault = uuid.uuidString.lowercased()
    }

    /// The name of the vault's entry in the key cache.
    public var cacheName: String { "\(Self.cacheNamePrefix(uid: uid))\(vault)" }

    /// What the cache names of every vault of `uid` start with.
    static func cacheNamePrefix(uid: uid_t) -> String { "\(uid)/" }

    public var description: String { "uid \(uid) vault \(vault)" }
}
