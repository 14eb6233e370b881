import Foundation
public import Vault

/// `restore --note`: one note taken out of a backup into the open vault, which is otherwise left as
/// it is (no security state comes back, so the vault's own unlock is enough).
extension AuthContext {
    /// Opens `backupPath` for reading, checked whole, with `vault`'s key when it is an older copy
    /// of it, else with the passcode (or recovery key) the backup was made with. `discard()` it after.
    public func openBackup(_ backupPath: String, besides vault: Vault) async throws -> StagedRestore {
        guard FileManager.default.fileExists(atPath: backupPath) else {
            throw AuthError(.notFound, "No backup at \(backupPath).")
        }
        return try await stage(backupPath, current: vault)
    }
}
