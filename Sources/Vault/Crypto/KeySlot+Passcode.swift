import Crypto
import Foundation

/// The passcode slot, whichever sealer sealed it: `parameters` are the scrypt parameters (the same
/// calibration and ceiling in every mode), `wrapped` what the sealer returned. The slot's name and
/// associated data follow the mode the sealer records, so a slot cannot be passed off as another
/// mode's, and a user-mode slot is byte for byte what fingerlock wrote before sealers existed.
extension KeySlot {
    /// The passcode slot's name in `mode`.
    static func passcodeName(_ mode: VaultMode) -> String {
        switch mode {
        case .user: passcode
        case .system: systemPasscode
        }
    }

    /// Binds the store id, the slot's name (its kind), its scrypt parameters and, outside user mode,
    /// the mode.
    static func passcodeAssociatedData(_ mode: VaultMode, parameters: [UInt8], storeID: UUID) -> [UInt8] {
        var fields = [Array(passcodeName(mode).utf8), parameters]
        if mode != .user { fields.append(Array(mode.rawValue.utf8)) }
        return KeyHierarchy.associatedData("slot", storeID: storeID, fields)
    }

    /// Runs scrypt here (no sealer ever sees the passcode) and has `sealer` seal the store master key
    /// under it. Returns the slot with what opens it again (to confirm it once committed).
    static func makePasscode(
        _ passcode: String, cost: KDFCost, keys: KeyHierarchy, sealer: any PasscodeSlotSealer,
        authorizedBy currentKey: SymmetricKey? = nil
    ) throws(VaultError) -> (slot: KeySlot, sealed: SealedPasscodeSlot) {
        let (parameters, stretched) = try guarded {
            try ScryptParameters.derive(try passcodeBytes(passcode), cost: cost)
        }
        let encoded = parameters.encoded
        let binding = PasscodeSlotBinding(
            vault: keys.storeID, stretched: stretched,
            associatedData: passcodeAssociatedData(sealer.mode, parameters: encoded, storeID: keys.storeID))
        let wrapped: Data
        do {
            wrapped = try sealer.seal(keys.master, for: binding, authorizedBy: currentKey)
        } catch {
            throw VaultError(sealing: error)
        }
        return (
            KeySlot(name: passcodeName(sealer.mode), parameters: encoded, wrapped: wrapped),
            SealedPasscodeSlot(binding: binding, sealed: wrapped)
        )
    }

    /// The slot as a sealer opens it, for `passcode` (one scrypt run, refused first when the
    /// parameters are malformed or above the ceiling).
    func sealed(
        passcode: String, mode: VaultMode, storeID: UUID,
        derive: (ScryptParameters, [UInt8]) throws -> SymmetricKey = { try $0.deriveKey($1) }
    ) throws(VaultError) -> SealedPasscodeSlot {
        let stretched = try stretch(passcode, derive: derive)
        return SealedPasscodeSlot(
            binding: PasscodeSlotBinding(
                vault: storeID, stretched: stretched,
                associatedData: Self.passcodeAssociatedData(mode, parameters: parameters, storeID: storeID)),
            sealed: wrapped)
    }

    /// Opens with `passcode` through `sealer`, which may count the attempt before it tries.
    func unwrap(
        passcode: String, storeID: UUID, sealer: any PasscodeSlotSealer,
        derive: (ScryptParameters, [UInt8]) throws -> SymmetricKey = { try $0.deriveKey($1) }
    ) throws(VaultError) -> SymmetricKey {
        let slot = try sealed(passcode: passcode, mode: sealer.mode, storeID: storeID, derive: derive)
        do {
            return try sealer.open(slot)
        } catch {
            throw VaultError(sealing: error)
        }
    }
}
