public import Crypto
public import Foundation
public import Vault

/// Where the passcode lives, as SwiftPasscodeLock's repository: the passcode screens and the policy
/// talk to this seam, and the vault's key slots stand behind it (a system service could later).
public protocol PasscodeRepository: Sendable {
    /// Whether a passcode (and so a vault) exists.
    var hasPasscode: Bool { get }
    /// Creates the vault protected by `passcode` and `recoveryKey` (already shown to the user);
    /// returns it open.
    func create(passcode: String, kind: VaultKind, recoveryKey: RecoveryKey) throws(VaultError) -> Vault
    /// Opens with a passcode, recovery key or cached key; throws `VaultError` when it is wrong.
    func open(with credential: VaultCredential) throws(VaultError) -> Vault
    /// Replaces the passcode of an open vault (rewraps its slot only).
    func replacePasscode(of vault: Vault, with passcode: String) throws(VaultError)
    /// Rotates the store master key of an open vault; `recoveryKey` (already shown) replaces the old one.
    func rekey(_ vault: Vault, passcode: String, recoveryKey: RecoveryKey) throws(VaultError)
    /// The store id, readable before unlocking (it names the key-cache entry).
    func storeID() throws(VaultError) -> UUID
    /// Stages a backup beside the vault, opened with `credential` and verified, for `restore`.
    func stageRestore(from backupPath: String, using credential: VaultCredential) throws(VaultError) -> StagedRestore
    /// Opens with the store master key `masterKeyFor` finds for the store id (a cached key), checked
    /// like `.masterKey`; nil when it finds none. Errors it throws pass through unchanged.
    func open(masterKeyFor: (UUID) throws -> SymmetricKey?) throws -> Vault?
    /// The store id and the mode, read without unlocking (unauthenticated: the mode only chooses
    /// the way in).
    func header() throws(VaultError) -> VaultHeader
    /// Moves an open user-mode vault into system mode with `passcode` (fingerlockd seals its slot).
    func enableSystemMode(of vault: Vault, passcode: String) throws(VaultError)
    /// Moves an open system-mode vault back to user mode; returns why the service could not forget it.
    func disableSystemMode(of vault: Vault, passcode: String) throws(VaultError) -> VaultError?
    /// Puts an open system-mode vault back in user mode with `passcode`, without the service.
    func leaveSystemModeWithoutService(_ vault: Vault, passcode: String) throws(VaultError)
    /// What fingerlockd knows about this vault (no secret; nothing asked, nothing counted).
    func serviceStatus() throws(VaultError) -> SystemVaultStatus
    /// What proves `passcode` to fingerlockd for a system-mode vault, without opening it.
    func systemPasscodeProof(passcode: String) throws(VaultError) -> SystemPasscodeProof
}

extension PasscodeRepository {
    /// `storeID()`, then `open(with: .masterKey(_))`: two reads of the store.
    public func open(masterKeyFor masterKey: (UUID) throws -> SymmetricKey?) throws -> Vault? {
        guard let key = try masterKey(try storeID()) else { return nil }
        return try open(with: .masterKey(key))
    }

    /// A repository that knows no system mode.
    public func header() throws(VaultError) -> VaultHeader { VaultHeader(storeID: try storeID(), mode: .user) }

    public func enableSystemMode(of vault: Vault, passcode: String) throws(VaultError) {
        try vault.enableSystemMode(passcode: passcode)
    }

    public func disableSystemMode(of vault: Vault, passcode: String) throws(VaultError) -> VaultError? {
        try vault.disableSystemMode(passcode: passcode)
    }

    public func leaveSystemModeWithoutService(_ vault: Vault, passcode: String) throws(VaultError) {
        try vault.leaveSystemModeWithoutService(passcode: passcode)
    }

    public func serviceStatus() throws(VaultError) -> SystemVaultStatus {
        throw VaultError(.serviceUnavailable, "fingerlockd is not configured for this fingerlock.")
    }

    public func systemPasscodeProof(passcode: String) throws(VaultError) -> SystemPasscodeProof {
        throw VaultError(.invalidInput, "This vault is not in system mode.")
    }
}

/// The passcode in the vault's key slots.
public struct VaultPasscodeRepository: PasscodeRepository {
    public let dataDirectory: String
    public let configuration: VaultConfiguration
    /// `.calibrated` except in tests.
    public let cost: KDFCost
    /// The database `header()` opened, for the unlock that follows.
    private let pending = PendingVault()

    public init(dataDirectory: String, configuration: VaultConfiguration, cost: KDFCost) {
        self.dataDirectory = dataDirectory
        self.configuration = configuration
        self.cost = cost
    }

    public var hasPasscode: Bool { Vault.exists(in: dataDirectory) }

    public func create(passcode: String, kind: VaultKind, recoveryKey: RecoveryKey) throws(VaultError) -> Vault {
        try Vault.create(
            in: dataDirectory, passcode: passcode, kind: kind, cost: cost, recoveryKey: recoveryKey,
            configuration: configuration
        ).vault
    }

    public func open(with credential: VaultCredential) throws(VaultError) -> Vault {
        guard let locked = pending.take() else {
            return try Vault.open(in: dataDirectory, using: credential, configuration: configuration)
        }
        do {
            return try locked.unlock(using: credential)
        } catch {
            // A wrong passcode: the next try reads the same connection.
            pending.keep(locked)
            throw error
        }
    }

    /// Reads the store once (`Vault.open(in:masterKeyFor:)`) instead of twice, or not again at all
    /// after `header()`.
    public func open(masterKeyFor masterKey: (UUID) throws -> SymmetricKey?) throws -> Vault? {
        guard let locked = pending.take() else {
            return try Vault.open(in: dataDirectory, masterKeyFor: masterKey, configuration: configuration)
        }
        do {
            guard let vault = try locked.unlock(masterKeyFor: masterKey) else {
                // No cached key: the passcode that usually follows reads the same connection.
                pending.keep(locked)
                return nil
            }
            return vault
        } catch {
            pending.keep(locked)
            throw error
        }
    }

    public func replacePasscode(of vault: Vault, with passcode: String) throws(VaultError) {
        try vault.changePasscode(to: passcode, cost: cost)
    }

    public func rekey(_ vault: Vault, passcode: String, recoveryKey: RecoveryKey) throws(VaultError) {
        _ = try vault.rekey(passcode: passcode, cost: cost, recoveryKey: recoveryKey)
    }

    public func storeID() throws(VaultError) -> UUID { try Vault.storeID(in: dataDirectory) }

    public func stageRestore(from backupPath: String, using credential: VaultCredential) throws(VaultError) -> StagedRestore {
        try Vault.stageRestore(from: backupPath, into: dataDirectory, using: credential, configuration: configuration)
    }

    /// Keeps the database open for the unlock that usually follows (see `PendingVault`).
    public func header() throws(VaultError) -> VaultHeader {
        let locked = try LockedVault.open(in: dataDirectory, configuration: configuration)
        pending.keep(locked)
        return locked.header
    }

    public func enableSystemMode(of vault: Vault, passcode: String) throws(VaultError) {
        try vault.enableSystemMode(passcode: passcode, cost: cost)
    }

    public func disableSystemMode(of vault: Vault, passcode: String) throws(VaultError) -> VaultError? {
        try vault.disableSystemMode(passcode: passcode, cost: cost)
    }

    public func leaveSystemModeWithoutService(_ vault: Vault, passcode: String) throws(VaultError) {
        try vault.leaveSystemModeWithoutService(passcode: passcode, cost: cost)
    }

    public func serviceStatus() throws(VaultError) -> SystemVaultStatus {
        try Vault.serviceStatus(in: dataDirectory, configuration: configuration)
    }

    public func systemPasscodeProof(passcode: String) throws(VaultError) -> SystemPasscodeProof {
        try Vault.systemPasscodeProof(in: dataDirectory, passcode: passcode)
    }
}
