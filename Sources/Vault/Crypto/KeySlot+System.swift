import Crypto
import Foundation

/// System mode's passcode slot: `parameters` are scrypt parameters (same calibration and ceiling as
/// the user-mode slot) and `wrapped` is what fingerlockd sealed under
/// KEK = HKDF(scrypt(passcode) ‖ its per-vault secret). Without the service's secret the slot
/// cannot be opened, so a copy of the vault gives nothing to guess the passcode against offline.
extension KeySlot {
    /// Binds the store id, the slot's name (its kind), its scrypt parameters and the mode; the
    /// service authenticates it, so a slot moved to another vault or relabelled does not open.
    static func systemAssociatedData(parameters: [UInt8], storeID: UUID) -> [UInt8] {
        KeyHierarchy.associatedData(
            "slot", storeID: storeID,
            [Array(systemPasscode.utf8), parameters, Array(VaultMode.system.rawValue.utf8)])
    }

    /// Runs scrypt here (the service never sees the passcode) and asks the service to seal the SMK.
    static func makeSystemPasscode(
        _ passcode: String, cost: KDFCost, keys: KeyHierarchy, service: any SystemSlotService,
        authorizedBy currentKey: SymmetricKey? = nil
    ) throws(VaultError) -> (slot: KeySlot, stretched: SymmetricKey) {
        let (parameters, stretched) = try guarded {
            try ScryptParameters.derive(try passcodeBytes(passcode), cost: cost)
        }
        let encoded = parameters.encoded
        let sealed = try serviceCall { () throws(SystemSlotError) -> Data in
            try service.seal(
                vault: keys.storeID, stretched: stretched, key: keys.master,
                associatedData: systemAssociatedData(parameters: encoded, storeID: keys.storeID), authorizedBy: currentKey)
        }
        return (KeySlot(name: systemPasscode, parameters: encoded, wrapped: sealed), stretched)
    }

    /// Proves this slot, just committed to the vault, to the service (`stretched` from sealing it,
    /// so no second key derivation): until a slot sealed there is seen in use the service still
    /// takes the one before it, which a change that failed after sealing leaves in the vault. Best
    /// effort: if it fails, the next passcode unlock proves it.
    func confirmInService(stretched: SymmetricKey, storeID: UUID, service: any SystemSlotService) {
        _ = try? service.unlock(
            vault: storeID, stretched: stretched, sealedSlot: wrapped,
            associatedData: Self.systemAssociatedData(parameters: parameters, storeID: storeID))
    }

    /// Opens through the service, which counts the attempt before it tries the slot.
    func unwrapThroughService(passcode: String, storeID: UUID, service: any SystemSlotService)
        throws(VaultError) -> SymmetricKey
    {
        let stretched = try stretch(passcode)
        return try Self.serviceCall { () throws(SystemSlotError) -> SymmetricKey in
            try service.unlock(
                vault: storeID, stretched: stretched, sealedSlot: wrapped,
                associatedData: Self.systemAssociatedData(parameters: parameters, storeID: storeID))
        }
    }

    /// Asks the service to forget the vault, proving the passcode as an unlock does.
    func forgetInService(passcode: String, storeID: UUID, service: any SystemSlotService) throws(VaultError) {
        let stretched = try stretch(passcode)
        try Self.serviceCall { () throws(SystemSlotError) in
            try service.forget(
                vault: storeID, stretched: stretched, sealedSlot: wrapped,
                associatedData: Self.systemAssociatedData(parameters: parameters, storeID: storeID))
        }
    }

    /// Maps the service's refusals onto the vault's errors.
    static func serviceCall<T>(_ body: () throws(SystemSlotError) -> T) throws(VaultError) -> T {
        do {
            return try body()
        } catch {
            throw VaultError.fromService(error)
        }
    }
}

extension VaultError {
    public static func fromService(_ error: SystemSlotError) -> VaultError {
        switch error.code {
        case .wrongPasscode(let failed, let delay):
            let wait = delay > 0 ? "; the next try must wait \(describeSeconds(delay))" : ""
            return VaultError(
                .wrongPasscode, "Wrong passcode (fingerlockd counts \(failed) wrong in a row\(wait)).")
        case .delayed(let left, let failed):
            return VaultError(
                .passcodeDelayed,
                "Too many wrong passcodes (\(failed), counted by fingerlockd): try again in \(describeSeconds(left)).")
        case .notRegistered:
            return VaultError(
                .serviceUnavailable,
                "fingerlockd has no secret for this vault (it was forgotten, or the service's state was lost): "
                    + "the passcode cannot open it. The recovery key still does: run `fingerlock passcode reset`.")
        case .unreachable, .failure:
            return VaultError(.serviceUnavailable, error.message)
        }
    }

    static func describeSeconds(_ seconds: Int) -> String {
        if seconds < 60 { return "\(max(seconds, 1)) s" }
        let minutes = (seconds + 59) / 60
        return minutes < 60 ? "\(minutes) min" : "\((minutes + 59) / 60) h"
    }
}
