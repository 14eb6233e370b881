public import Crypto
public import Foundation

/// User mode's sealer, the vault's own: the stretched passcode is the AES-GCM key of the slot, so the
/// passcode alone opens it. Nothing is counted here; the caller's policy counts attempts.
public struct VaultPasscodeSealer: PasscodeSlotSealer {
    public init() {}

    public var mode: VaultMode { .user }

    public func seal(_ key: SymmetricKey, for slot: PasscodeSlotBinding, authorizedBy currentKey: SymmetricKey?)
        throws(PasscodeSealerError) -> Data
    {
        do {
            return try Sealer.seal(key.withUnsafeBytes { Array($0) }, key: slot.stretched, ad: slot.associatedData)
        } catch {
            throw PasscodeSealerError(.unavailable, "Sealing the passcode slot failed: \(error).")
        }
    }

    public func open(_ slot: SealedPasscodeSlot) throws(PasscodeSealerError) -> SymmetricKey {
        guard let plain = Sealer.open(slot.sealed, key: slot.stretched, ad: slot.associatedData), plain.count == 32 else {
            throw PasscodeSealerError(.wrongPasscode, "Wrong passcode.")
        }
        return SymmetricKey(data: plain)
    }
}
