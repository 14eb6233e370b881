import Crypto
import Foundation
import GRDB
import Synchronization

/// Moving a vault between user mode and system mode (fingerlockd holds a per-vault secret entangled
/// into the passcode slot). The recovery-key slot never changes: it opens the vault in either mode,
/// without the service.
extension Vault {
    /// User or system mode, as recorded under the slot-table MAC (checked when the vault was opened).
    public var mode: VaultMode {
        get throws(VaultError) { try unlocked().mode }
    }

    /// What fingerlockd knows about the vault in `directory` (for `status`): its store id is read
    /// without unlocking, the service is asked nothing secret and counts nothing.
    public static func serviceStatus(in directory: String, configuration: VaultConfiguration)
        throws(VaultError) -> SystemVaultStatus
    {
        try serviceStatus(of: try unauthenticatedMeta(in: directory).storeID, configuration.systemSlots)
    }

    /// The same for this open vault (a staged backup, for `restore`'s plan).
    public func serviceStatus() throws(VaultError) -> SystemVaultStatus {
        try Self.serviceStatus(of: try unlocked().keys.storeID, configuration.systemSlots)
    }

    private static func serviceStatus(of storeID: UUID, _ service: any SystemSlotService)
        throws(VaultError) -> SystemVaultStatus
    {
        try KeySlot.serviceCall { () throws(SystemSlotError) in try service.status(vault: storeID) }
    }

    /// `system enable`: registers the vault with the service, seals a system-mode passcode slot for
    /// `passcode` through it and, in one transaction, writes that slot, destroys the user-mode
    /// passcode slot and records the mode. Old backups still open with the old passcode.
    public func enableSystemMode(passcode: String, cost: KDFCost = .calibrated) throws(VaultError) {
        let current = try unlocked()
        guard current.mode == .user else {
            throw VaultError(.invalidInput, "This vault is already in system mode.")
        }
        try KeySlot.serviceCall { () throws(SystemSlotError) in
            try configuration.systemSlots.register(vault: current.keys.storeID)
        }
        try writePasscodeSlot(passcode, mode: .system, cost: cost)
    }

    /// `system disable`: writes a user-mode passcode slot for `passcode` (already proven through the
    /// service when the vault was opened) and records user mode, then asks the service to forget the
    /// vault. The vault is in user mode once this returns; a failure to forget is returned (the
    /// service keeps an unused secret), not thrown.
    public func disableSystemMode(passcode: String, cost: KDFCost = .calibrated) throws(VaultError) -> VaultError? {
        let current = try unlocked()
        guard current.mode == .system else { throw VaultError(.invalidInput, "This vault is not in system mode.") }
        let oldSlot = try read { db, _, _ in try KeySlot.readAll(db).first { $0.name == KeySlot.systemPasscode } }
        try writePasscodeSlot(passcode, mode: .user, cost: cost)
        guard let oldSlot else { return nil }
        do {
            try oldSlot.forgetInService(
                passcode: passcode, storeID: current.keys.storeID, service: configuration.systemSlots)
            return nil
        } catch {
            return error
        }
    }

    /// `passcode reset` when fingerlockd is gone or has lost this vault's secret: the vault, opened
    /// with the recovery key, goes back to user mode with `passcode`, without the service (losing the
    /// service's state never loses notes). The caller says so to the user.
    public func leaveSystemModeWithoutService(passcode: String, cost: KDFCost = .calibrated) throws(VaultError) {
        guard try unlocked().mode == .system else {
            throw VaultError(.invalidInput, "This vault is not in system mode.")
        }
        try writePasscodeSlot(passcode, mode: .user, cost: cost)
    }

    /// Replaces whichever passcode slot the vault has by one for `passcode` in `mode` (sealed through
    /// the service for system mode), and records the mode — slots, mode and MAC in one transaction.
    func writePasscodeSlot(_ passcode: String, mode: VaultMode, cost: KDFCost) throws(VaultError) {
        let current = try unlocked()
        let keys = current.keys
        // Held from before fingerlockd seals the new slot until the vault holds it: another change's
        // seal in between would leave the service bound to a slot no vault holds.
        let lock = try files.acquireLock(timeout: configuration.lockTimeout)
        defer { withExtendedLifetime(lock) {} }
        let slot: KeySlot
        var stretched: SymmetricKey?
        switch mode {
        case .user: slot = try guarded { try KeySlot.makePasscode(passcode, cost: cost, keys: keys) }
        case .system:
            (slot, stretched) = try KeySlot.makeSystemPasscode(passcode, cost: cost, keys: keys, service: configuration.systemSlots)
        }
        try writeChecked(holding: lock) { db, keys, meta in
            // `passcode reset` must work when the passcode slot's cost fields were forged: the
            // rest of the table is checked as written, and the passcode slot replaced below.
            guard
                var slots = KeySlot.verifiedTable(
                    meta.slotMAC, try KeySlot.readAll(db), kind: meta.kind, mode: meta.mode, keys: keys)
            else { throw VaultError.tampered("slot table") }
            slots.removeAll { $0.name == KeySlot.passcode || $0.name == KeySlot.systemPasscode }
            slots.append(slot)
            try KeySlot.replaceAll(slots, db)
            try db.execute(
                sql: "UPDATE meta SET slot_mac = ?, mode = ? WHERE singleton = 1",
                arguments: [KeySlot.tableMAC(slots, kind: meta.kind, mode: mode, keys: keys), mode.rawValue])
        }
        state.withLock { $0?.mode = mode }
        forgetOldPages()
        // A new slot in a system-mode vault (a passcode change or reset) retires the one before it in
        // the service. Not on `system enable`: that vault's first slot has none before it, and the
        // service is to hold no key until the first passcode unlock.
        if let stretched, current.mode == .system {
            slot.confirmInService(stretched: stretched, storeID: keys.storeID, service: configuration.systemSlots)
        }
    }
}
