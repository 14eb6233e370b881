import Synchronization
import Vault

/// The vault database a repository opened to read its header, kept for the unlock that usually
/// follows in the same command (so the command opens the database once, not twice). Taken by the
/// first unlock; a file replaced since (a restore) is never used.
final class PendingVault: Sendable {
    private let locked = Mutex<LockedVault?>(nil)

    /// Keeps `vault` for the next unlock, closing one kept before.
    func keep(_ vault: LockedVault) {
        let previous = locked.withLock { slot in
            defer { slot = vault }
            return slot
        }
        previous?.close()
    }

    /// The kept vault if it still reads the vault's current file (nil otherwise, or when none is
    /// kept). Whoever takes it keeps it again when it did not unlock.
    func take() -> LockedVault? {
        guard
            let vault = locked.withLock({ slot in
                defer { slot = nil }
                return slot
            })
        else { return nil }
        guard vault.isCurrent else {
            vault.close()
            return nil
        }
        return vault
    }
}
