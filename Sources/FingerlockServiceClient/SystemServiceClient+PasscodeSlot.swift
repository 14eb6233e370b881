public import Auth
import AuthCore
public import Crypto
import FingerlockProtocol
public import Foundation
public import TrustedPlatform
public import Vault

/// The passcode slot: fingerlockd's per-vault secret, its passcode counters and the key it keeps.
extension SystemServiceClient {
    static func base64(_ key: SymmetricKey) -> String { key.withUnsafeBytes { Data($0).base64EncodedString() } }

    static func proof(_ slot: SealedPasscodeSlot) -> VarlinkParameters.PasscodeProof {
        .init(
            vault: id(slot.vault), stretched: base64(slot.stretched), sealedSlot: slot.sealed.base64EncodedString(),
            associatedData: Data(slot.associatedData).base64EncodedString())
    }

    public func register(vault: UUID) throws {
        _ = try call { client throws(ServiceClientError) in try client.registerVault(Self.id(vault)) }
    }

    public func seal(_ key: SymmetricKey, for slot: PasscodeSlotBinding, authorizedBy currentKey: SymmetricKey?, tpm: TPMBinding?)
        throws -> Data
    {
        let reply = try call { client throws(ServiceClientError) in
            try client.sealPasscodeSlot(
                .init(
                    vault: Self.id(slot.vault), stretched: Self.base64(slot.stretched), key: Self.base64(key),
                    associatedData: Data(slot.associatedData).base64EncodedString(),
                    currentKey: currentKey.map(Self.base64), tpm: tpm.map { .init(pcr7: $0.pcr7) }))
        }
        guard let sealed = Data(base64Encoded: reply.sealedSlot) else {
            throw Self.failure("fingerlockd at \(socketPath) sent a sealed slot that is not base64.")
        }
        return sealed
    }

    /// The service keeps the key for a touch to release, for the vault's `cache-expiry` as the vault
    /// last told it (the default before): the longest life is asked for, the service caps it.
    public func unlock(_ slot: SealedPasscodeSlot, notify: @escaping @Sendable (String) -> Void) throws -> SymmetricKey {
        let reply = try call { client throws(ServiceClientError) in
            try client.unlockWithPasscode(
                .init(
                    vault: Self.id(slot.vault), stretched: Self.base64(slot.stretched),
                    sealedSlot: slot.sealed.base64EncodedString(),
                    associatedData: Data(slot.associatedData).base64EncodedString(),
                    cacheSeconds: ServiceInterface.maximumCacheSeconds))
        }
        guard var bytes = Data(base64Encoded: reply.key) else {
            throw Self.failure("fingerlockd at \(socketPath) sent a key that is not base64.")
        }
        defer { bytes.resetBytes(in: bytes.indices) }
        if let change = reply.fprintdChange {
            notify(FprintdConsent.told(change))
        }
        return SymmetricKey(data: bytes)
    }

    public func forgetVault(_ slot: SealedPasscodeSlot) throws {
        try call { client throws(ServiceClientError) in try client.forgetVault(Self.proof(slot)) }
    }

    public func status(vault: UUID) throws -> SystemVaultStatus {
        let reply = try call { client throws(ServiceClientError) in try client.status(Self.id(vault)) }
        return SystemVaultStatus(
            registered: reply.registered, unlocked: reply.unlocked, unlockedSeconds: reply.unlockedSeconds,
            failedPasscodes: reply.failedPasscodes, delaySeconds: reply.delaySeconds,
            failedTouches: reply.failedTouches, touchLockedOut: reply.touchLockedOut, reuseSeconds: reply.reuseSeconds)
    }
}
