public import Crypto
public import Foundation

/// Who seals a vault's passcode slot: the one part of the slot the vault does not do itself.
///
/// The vault owns the slot's format: it runs scrypt on the passcode under the parameters it stores
/// in the slot, names the slot after the mode and binds the store id, the parameters and the mode
/// into the associated data; it authenticates the whole slot table with its MAC. A sealer only turns
/// the stretched passcode and the store master key into the slot's sealed bytes, and back. User
/// mode's sealer is the vault's own (`VaultPasscodeSealer`: AES-GCM under the stretched passcode);
/// system mode's mixes in a secret a service keeps and counts the attempts; a TPM-bound one would
/// mix in a secret the TPM keeps.
///
/// Sealers are handed in per call, so the vault never knows who they are: a passcode change or a
/// rekey calls `seal` while it holds the vault lock, and commits what it returns in the same hold.
public protocol PasscodeSlotSealer: Sendable {
    /// The mode the vault records with a slot this sealer sealed (and that chooses it to open one).
    var mode: VaultMode { get }

    /// Seals `key` for `slot`. Once a sealer sealed a slot for a vault it may refuse to seal another
    /// except for a caller holding the vault's key: `key` itself, or `currentKey` when `key` is a new
    /// one (a rekey).
    func seal(_ key: SymmetricKey, for slot: PasscodeSlotBinding, authorizedBy currentKey: SymmetricKey?)
        throws(PasscodeSealerError) -> Data

    /// The store master key in `slot`; `.wrongPasscode` when the stretched passcode does not open it.
    func open(_ slot: SealedPasscodeSlot) throws(PasscodeSealerError) -> SymmetricKey

    /// `slot`, which this sealer sealed, is now committed in place of an older slot it sealed (a
    /// passcode change or a rekey): a sealer that keeps state per slot may retire the old one. Best
    /// effort; never throws.
    func confirm(_ slot: SealedPasscodeSlot)
}

extension PasscodeSlotSealer {
    public func confirm(_ slot: SealedPasscodeSlot) {}
}

/// What a sealer binds a passcode slot to: the vault, the passcode as scrypt stretched it under the
/// slot's parameters, and the associated data the vault derives from the store id, the slot's name,
/// its parameters and the mode (a slot moved to another vault or relabelled does not open).
public struct PasscodeSlotBinding: Sendable {
    public let vault: UUID
    public let stretched: SymmetricKey
    public let associatedData: [UInt8]

    public init(vault: UUID, stretched: SymmetricKey, associatedData: [UInt8]) {
        self.vault = vault
        self.stretched = stretched
        self.associatedData = associatedData
    }
}

/// A passcode slot as a sealer opens it: its binding and its sealed bytes. It is also what proves a
/// passcode to a sealer that keeps state of its own, without opening the vault (it opens the slot,
/// counting first).
public struct SealedPasscodeSlot: Sendable {
    public let binding: PasscodeSlotBinding
    public let sealed: Data

    public init(binding: PasscodeSlotBinding, sealed: Data) {
        self.binding = binding
        self.sealed = sealed
    }

    public var vault: UUID { binding.vault }
    public var stretched: SymmetricKey { binding.stretched }
    public var associatedData: [UInt8] { binding.associatedData }
}

/// Why a sealer did not seal or open a slot, with the sentence its owner wants the user to read (the
/// vault passes it on unchanged, under the matching `VaultError` code).
public struct PasscodeSealerError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: Equatable, Sendable {
        /// The stretched passcode does not open the slot (the sealer may have counted it).
        case wrongPasscode
        /// The sealer refuses passcode attempts until a delay ends (not counted).
        case delayed
        /// The sealer cannot be asked, or no longer holds what the slot needs.
        case unavailable
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

extension VaultError {
    /// A sealer's refusal, under the vault's code for it and with the sealer's own sentence.
    init(sealing error: PasscodeSealerError) {
        switch error.code {
        case .wrongPasscode: self.init(.wrongPasscode, error.message)
        case .delayed: self.init(.passcodeDelayed, error.message)
        case .unavailable: self.init(.sealerUnavailable, error.message)
        }
    }
}
