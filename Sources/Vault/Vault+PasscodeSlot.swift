import Crypto
public import Foundation
import GRDB
import Synchronization

/// The passcode slot: who seals it is the caller's choice, per call (a `PasscodeSlotSealer`); the
/// vault records the sealer's mode with the slot. The recovery-key slot never changes with it: it
/// opens the vault in any mode, without any sealer.
extension Vault {
    /// The mode of the passcode slot, as recorded under the slot-table MAC (checked when the vault
    /// was opened).
    public var mode: VaultMode {
        get throws(VaultError) { try unlocked().mode }
    }

    /// The passcode slot in `directory` as its sealer opens it, for `passcode` (one scrypt run), read
    /// without unlocking: what proves the passcode to a sealer that keeps state of its own (system
    /// mode's), which opens the slot itself, counting first. Nothing read here is trusted; the sealer checks it. Throws when the vault's
    /// recorded mode is not `mode`.
    public static func sealedPasscodeSlot(in directory: String, passcode: String, mode: VaultMode) throws(VaultError)
        -> SealedPasscodeSlot
    {
        let (meta, slots) = try unauthenticatedRead(in: directory) { db in (try MetaRow.read(db), try KeySlot.readAll(db)) }
        guard meta.mode == mode, let slot = slots.first(where: { $0.name == KeySlot.passcodeName(mode) }) else {
            throw VaultError(.invalidInput, "This vault is not in \(mode) mode.")
        }
        return try slot.sealed(passcode: passcode, mode: mode, storeID: meta.storeID)
    }

    /// What the passcode slot holds as its sealer wrote it, from the slot table the vault's MAC
    /// confirms: what tells a caller how the slot is sealed (bound to a TPM, say), so a passcode
    /// change or a rekey seals the next one the same way.
    public var passcodeSlotSealed: Data {
        get throws(VaultError) {
            try read { db, keys, _ in
                let meta = try MetaRow.read(db)
                guard
                    let slots = KeySlot.verifiedTable(meta.slotMAC, try KeySlot.readAll(db), kind: meta.kind, mode: meta.mode, keys: keys),
                    let slot = slots.first(where: { $0.name == KeySlot.passcodeName(meta.mode) })
                else { throw VaultError.tampered("slot table") }
                return slot.wrapped
            }
        }
    }

    /// The same, read without a key (for `status` before an unlock): nothing read here is trusted,
    /// it only says what the slot claims. Nil when there is no vault or no passcode slot.
    public static func unauthenticatedPasscodeSlotSealed(in directory: String) -> Data? {
        try? unauthenticatedRead(in: directory) { db in
            let meta = try MetaRow.read(db)
            return try KeySlot.readAll(db).first { $0.name == KeySlot.passcodeName(meta.mode) }?.wrapped
        }
    }

    /// Replaces the passcode slot by one for `passcode` sealed by `sealer`, whose mode must be the
    /// vault's: slot and MAC in one transaction, so after a crash either the old or the new passcode
    /// opens the vault. Notes are untouched. The vault may have been opened with any credential (the
    /// recovery key for a reset). A vault another process moved to another mode meanwhile is left
    /// alone (`busy`): a passcode change never moves a vault between modes by itself.
    ///
    /// The vault lock is held from before `sealer` seals the new slot until the vault holds it: a
    /// sealer that keeps state per slot is never left bound to a slot another change replaced in
    /// between. The sealer confirms the new slot once it is committed.
    public func changePasscode(to passcode: String, sealer: any PasscodeSlotSealer, cost: KDFCost = .calibrated)
        throws(VaultError)
    {
        try writePasscodeSlot(passcode, sealer: sealer, from: sealer.mode, cost: cost)
    }

    /// Moves the vault from `mode` to `sealer`'s mode: a slot for `passcode` sealed by `sealer`
    /// replaces the slot of `mode`, and the new mode is recorded, in one transaction. Refused
    /// (`busy`, nothing written) when the vault is no longer in `mode`. Old backups still open with
    /// the old passcode and sealer. The new sealer confirms nothing: it had no slot of this vault.
    public func movePasscodeSlot(
        from mode: VaultMode, to sealer: any PasscodeSlotSealer, passcode: String, cost: KDFCost = .calibrated
    ) throws(VaultError) {
        try writePasscodeSlot(passcode, sealer: sealer, from: mode, cost: cost)
    }

    private func writePasscodeSlot(_ passcode: String, sealer: any PasscodeSlotSealer, from mode: VaultMode, cost: KDFCost)
        throws(VaultError)
    {
        let keys = try unlocked().keys
        let lock = try files.acquireLock(timeout: configuration.lockTimeout)
        defer { withExtendedLifetime(lock) {} }
        // Under the lock, so no other change commits before ours: checked before the sealer is asked.
        guard try read({ db, _, _ in try MetaRow.read(db).mode }) == mode else { throw VaultError.modeChanged }
        let (slot, sealed) = try KeySlot.makePasscode(passcode, cost: cost, keys: keys, sealer: sealer)
        let newMode = sealer.mode
        try writeChecked(holding: lock) { db, keys, meta in
            guard meta.mode == mode else { throw VaultError.modeChanged }
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
                arguments: [KeySlot.tableMAC(slots, kind: meta.kind, mode: newMode, keys: keys), newMode.rawValue])
        }
        state.withLock { $0?.mode = newMode }
        forgetOldPages()
        if newMode == mode { sealer.confirm(sealed) }
    }
}
