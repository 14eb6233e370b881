public import AuthCore
public import Crypto
public import Fingerprint
public import Foundation
public import TrustedPlatform
public import Vault

/// For a fingerlock with no service configured: every call says system mode is not available.
public struct NoSystemService: SystemService {
    public init() {}

    private var unavailable: SystemServiceError {
        SystemServiceError(.unreachable("fingerlockd is not configured for this fingerlock."))
    }

    public func register(vault: UUID) throws { throw unavailable }
    public func seal(_ key: SymmetricKey, for slot: PasscodeSlotBinding, authorizedBy currentKey: SymmetricKey?, tpm: TPMBinding?)
        throws
        -> Data
    { throw unavailable }
    public func unlock(_ slot: SealedPasscodeSlot, notify: @escaping @Sendable (String) -> Void) throws -> SymmetricKey {
        throw unavailable
    }
    public func useFprintdFingers(_ use: Bool, proof: SealedPasscodeSlot) async throws -> AcceptedFingers? { throw unavailable }
    public func forgetVault(_ slot: SealedPasscodeSlot) throws { throw unavailable }
    public func status(vault: UUID) throws -> SystemVaultStatus { throw unavailable }
    public func unlockWithoutScan(vault: UUID) async throws -> SystemReuse { throw unavailable }
    public func unlockWithTouch(
        vault: UUID, finger: Finger?, timeout: Duration, reuse: Bool,
        waiting: @escaping @Sendable (OtherUsersRequest) -> Void
    ) async throws -> SystemTouch {
        throw unavailable
    }
    public func setPolicy(vault: UUID, key: SymmetricKey, policy: SystemVaultPolicy, counts: AttemptState?) throws {
        throw unavailable
    }
    public func policy(vault: UUID) throws -> SystemVaultPolicy? { throw unavailable }
    public func lock(vault: UUID?) throws -> Bool { throw unavailable }
    public func enroll(
        _ finger: Finger, proof: SealedPasscodeSlot, timeout: Duration,
        progress: @escaping @Sendable (EnrollEvent) -> Void
    ) async throws -> SystemEnrolledFinger { throw unavailable }
    public func fingers(vault: UUID) throws -> [SystemEnrolledFinger] { throw unavailable }
    public func forget(_ finger: Finger, proof: SealedPasscodeSlot) async throws { throw unavailable }
    public func importPrint(_ print: EnrolledPrint, proof: SealedPasscodeSlot) async throws { throw unavailable }
    public func exportPrint(_ finger: Finger, proof: SealedPasscodeSlot) throws -> EnrolledPrint { throw unavailable }
}
