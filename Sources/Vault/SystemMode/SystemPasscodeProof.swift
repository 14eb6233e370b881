public import Crypto
public import Foundation

/// What proves the passcode of a system-mode vault to fingerlockd without opening the vault: the
/// passcode's scrypt output under the slot's parameters, the sealed slot and its associated data.
/// The service counts the attempt and checks it by opening the slot; nothing here is trusted.
public struct SystemPasscodeProof: Sendable {
    public let vault: UUID
    public let stretched: SymmetricKey
    public let sealedSlot: Data
    public let associatedData: [UInt8]
}

extension Vault {
    /// The proof for `passcode` (one scrypt run), read from the slot table without unlocking —
    /// for enrolling and forgetting fingers through the service, which check it.
    public static func systemPasscodeProof(in directory: String, passcode: String) throws(VaultError)
        -> SystemPasscodeProof
    {
        let (meta, slots) = try unauthenticatedRead(in: directory) { db in (try MetaRow.read(db), try KeySlot.readAll(db)) }
        guard meta.mode == .system, let slot = slots.first(where: { $0.name == KeySlot.systemPasscode }) else {
            throw VaultError(.invalidInput, "This vault is not in system mode.")
        }
        return SystemPasscodeProof(
            vault: meta.storeID, stretched: try slot.stretch(passcode), sealedSlot: slot.wrapped,
            associatedData: KeySlot.systemAssociatedData(parameters: slot.parameters, storeID: meta.storeID))
    }
}
