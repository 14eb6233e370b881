import FoundationEssentials
public import SafeFiles

/// The service's state directory: `DIR/v1/UID/VAULT/{secret,slot-binding,policy,attempts,print.FINGER}`, every directory 0700 and
/// every file 0600, owned by the service user (`PrivateDirectory` refuses anything else).
public struct StateLayout: Sendable {
    public let root: PrivateDirectory

    public init(stateDirectory: String) throws(SafeFilesError) {
        root = try PrivateDirectory(creating: stateDirectory)
        _ = try root.subdirectory("v1")
    }

    public func userDirectory(_ uid: UInt32) -> String {
        root.appending("v1/\(uid)")
    }

    /// `VaultOwner` guarantees the vault id is a lower-case UUID: it cannot climb out of the directory.
    public func vaultDirectory(_ owner: VaultOwner) -> String {
        userDirectory(owner.uid) + "/" + owner.vault
    }
}
