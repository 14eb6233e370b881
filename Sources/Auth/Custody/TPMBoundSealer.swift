public import Crypto
public import Foundation
public import TrustedPlatform
public import Vault

/// A passcode-slot sealer with the TPM in the loop (`TPMBoundSlot` has the format and the keys):
/// it seals through the TPM when `binding` says so, and opens any slot — a bound one through the
/// TPM (fingerlock's near-lockout rule first, then the TPM, which counts a wrong passcode), an
/// unbound one through `inner` alone. User mode's custody wraps the vault's own sealer in it.
public struct TPMBoundSealer: PasscodeSlotSealer {
    let inner: any PasscodeSlotSealer
    let tpm: any TrustedPlatformModule
    /// How a slot sealed now is bound; nil: not bound (the inner sealer's slot, as before).
    let binding: TPMBinding?

    public init(inner: any PasscodeSlotSealer, tpm: any TrustedPlatformModule, binding: TPMBinding?) {
        self.inner = inner
        self.tpm = tpm
        self.binding = binding
    }

    public var mode: VaultMode { inner.mode }

    /// Said with every refusal that leaves the passcode unable to open the vault.
    public static let recoveryKeyNote =
        "The recovery key still opens the vault, on any machine: `fingerlock passcode reset` sets a new passcode"
        + " (bound to this machine's TPM when one answers)."

    public func seal(_ key: SymmetricKey, for slot: PasscodeSlotBinding, authorizedBy currentKey: SymmetricKey?)
        throws(PasscodeSealerError) -> Data
    {
        guard let binding else { return try inner.seal(key, for: slot, authorizedBy: currentKey) }
        do {
            return try TPMBoundSlot.seal(stretched: slot.stretched, vault: slot.vault, binding: binding, tpm: tpm) { slotKey in
                try inner.seal(
                    key, for: PasscodeSlotBinding(vault: slot.vault, stretched: slotKey, associatedData: slot.associatedData),
                    authorizedBy: currentKey)
            }
        } catch let error as PasscodeSealerError {
            throw error
        } catch let error as TPMError {
            // Only a TPM that is not there is `unavailable` (a reset with the recovery key may then
            // leave the slot unbound); one that answered with a refusal changes nothing.
            let message = "The passcode could not be bound to the TPM: " + error.message
            if error.code == .unreachable { throw PasscodeSealerError(.unavailable, message) }
            throw PasscodeSealerError(.delayed, message + " Nothing was changed; try again.")
        } catch {
            throw PasscodeSealerError(.unavailable, "The passcode could not be bound to the TPM: \(error).")
        }
    }

    public func open(_ slot: SealedPasscodeSlot) throws(PasscodeSealerError) -> SymmetricKey {
        guard TPMBoundSlot.isBound(slot.sealed) else { return try inner.open(slot) }
        let slotKey: SymmetricKey
        let bound: TPMBoundSlot
        do {
            bound = try TPMBoundSlot(decoding: slot.sealed)
            slotKey = try bound.slotKey(stretched: slot.stretched, vault: slot.vault, tpm: tpm)
        } catch {
            throw Self.refusal(error)
        }
        let inside = SealedPasscodeSlot(
            binding: PasscodeSlotBinding(vault: slot.vault, stretched: slotKey, associatedData: slot.associatedData),
            sealed: bound.inner)
        do {
            return try inner.open(inside)
        } catch let error where error.code == .wrongPasscode {
            // The TPM released its secret for this passcode, yet the slot does not open: not a
            // wrong passcode but a damaged slot (or a broken TPM).
            throw PasscodeSealerError(
                .unavailable, "The TPM accepted the passcode but the passcode slot does not open with it. " + Self.recoveryKeyNote)
        }
    }

    public func confirm(_ slot: SealedPasscodeSlot) { inner.confirm(slot) }

    /// The TPM's refusal as a sealer's: a wrong passcode counted, a delay, or the TPM out of reach
    /// (with what still opens the vault).
    static func refusal(_ error: TPMError) -> PasscodeSealerError {
        switch error.code {
        case .authorizationFailed:
            return PasscodeSealerError(.wrongPasscode, error.message)
        case .lockout, .nearLockout:
            return PasscodeSealerError(.delayed, error.message + " " + recoveryKeyNote)
        case .busy:
            return PasscodeSealerError(.delayed, error.message + " Nothing was counted; try again.")
        case .malformed:
            return PasscodeSealerError(
                .unavailable,
                "This vault's passcode slot is damaged (\(error.message)): the vault file was altered. Restore a backup.")
        case .unreachable, .foreignObject, .policyMismatch, .failed:
            return PasscodeSealerError(
                .unavailable, "This vault's passcode is bound to a TPM. " + error.message + " " + recoveryKeyNote)
        }
    }
}
