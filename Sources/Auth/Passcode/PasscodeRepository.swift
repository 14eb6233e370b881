public import Crypto
public import Foundation
public import Vault

/// Where the passcode lives, as SwiftPasscodeLock's repository: the passcode screens and the policy
/// talk to this seam, and the vault's key slots stand behind it (a system service could later).
public protocol PasscodeRepository: Sendable {
    /// Whether a passcode (and so a vault) exists.
    var hasPasscode: Bool { get }
    /// Creates the vault protected by `passcode` (in user mode) and `recoveryKey` (already shown to
    /// the user); returns it open.
    /// `sealer` seals the first passcode slot (user mode's own, possibly bound to a TPM).
    /// With `joining`, it is this machine's copy of a synced vault (its store id, key and recovery slot).
    func create(passcode: String, kind: VaultKind, recoveryKey: RecoveryKey, sealer: any PasscodeSlotSealer, joining: VaultJoinKey?)
        throws(VaultError) -> Vault
    /// The passcode slot's sealed bytes as the file claims them, read without a key (for `status`).
    func claimedPasscodeSlot() -> Data?
    /// Opens with a passcode (through the sealer `sealers` has for the vault's mode), recovery key
    /// or cached key; throws `VaultError` when it is wrong.
    func open(with credential: VaultCredential, sealers: PasscodeSealers) throws(VaultError) -> Vault
    /// Replaces the passcode slot of an open vault by one `sealer` (of the vault's mode) seals
    /// (rewraps its slot only).
    func replacePasscode(of vault: Vault, with passcode: String, sealer: any PasscodeSlotSealer) throws(VaultError)
    /// Moves an open vault from `mode` to `sealer`'s: a slot for `passcode` that `sealer` seals
    /// replaces the one of `mode` (`system enable`, `system disable`, a reset without fingerlockd).
    func movePasscodeSlot(of vault: Vault, from mode: VaultMode, to sealer: any PasscodeSlotSealer, passcode: String)
        throws(VaultError)
    /// Rotates the store master key of an open vault, proving and resealing the passcode through
    /// `sealer`; `recoveryKey` (already shown) replaces the old one.
    func rekey(
        _ vault: Vault, passcode: String, sealer: any PasscodeSlotSealer, recoveryKey: RecoveryKey,
        progress: ((_ done: Int, _ total: Int) -> Void)?)
        throws(VaultError)
    /// The store id, readable before unlocking (it names the key-cache entry).
    func storeID() throws(VaultError) -> UUID
    /// Stages a backup beside the vault, opened with `credential` and verified, for `restore`.
    func stageRestore(
        from backupPath: String, using credential: VaultCredential, sealers: PasscodeSealers, progress: ((_ done: Int, _ total: Int) -> Void)?
    )
        throws(VaultError) -> StagedRestore
    /// Opens with the store master key `masterKeyFor` finds for the store id (a cached key), checked
    /// like `.masterKey`; nil when it finds none. Errors it throws pass through unchanged.
    func open(masterKeyFor: (UUID) throws -> SymmetricKey?) throws -> Vault?
    /// The store id and the mode, read without unlocking (unauthenticated: the mode only chooses
    /// the way in).
    func header() throws(VaultError) -> VaultHeader
    /// The passcode slot of a vault in `mode` as its sealer opens it, for `passcode`, without
    /// opening the vault: what proves the passcode to fingerlockd.
    func sealedPasscodeSlot(passcode: String, mode: VaultMode) throws(VaultError) -> SealedPasscodeSlot
}

extension PasscodeRepository {
    /// `storeID()`, then `open(with: .masterKey(_))`: two reads of the store.
    public func open(masterKeyFor masterKey: (UUID) throws -> SymmetricKey?) throws -> Vault? {
        guard let key = try masterKey(try storeID()) else { return nil }
        return try open(with: .masterKey(key), sealers: .vaultOnly)
    }

    /// Opens with a store master key (a cached key, or one fingerlockd released).
    public func open(withKey key: SymmetricKey) throws(VaultError) -> Vault {
        try open(with: .masterKey(key), sealers: .vaultOnly)
    }

    /// A repository that knows no system mode.
    public func header() throws(VaultError) -> VaultHeader { VaultHeader(storeID: try storeID(), mode: .user) }

    public func sealedPasscodeSlot(passcode: String, mode: VaultMode) throws(VaultError) -> SealedPasscodeSlot {
        throw VaultError(.invalidInput, "This vault is not in \(mode) mode.")
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

    public func create(
        passcode: String, kind: VaultKind, recoveryKey: RecoveryKey, sealer: any PasscodeSlotSealer, joining: VaultJoinKey?
    ) throws(VaultError) -> Vault {
        try Vault.create(
            in: dataDirectory, passcode: passcode, kind: kind, cost: cost, recoveryKey: recoveryKey,
            configuration: configuration, sealer: sealer, joining: joining
        ).vault
    }

    public func claimedPasscodeSlot() -> Data? { Vault.unauthenticatedPasscodeSlotSealed(in: dataDirectory) }

    public func open(with credential: VaultCredential, sealers: PasscodeSealers) throws(VaultError) -> Vault {
        guard let locked = pending.take() else {
            return try Vault.open(in: dataDirectory, using: credential, sealers: sealers, configuration: configuration)
        }
        do {
            return try locked.unlock(using: credential, sealers: sealers)
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

    public func replacePasscode(of vault: Vault, with passcode: String, sealer: any PasscodeSlotSealer)
        throws(VaultError)
    {
        try vault.changePasscode(to: passcode, sealer: sealer, cost: cost)
    }

    public func movePasscodeSlot(
        of vault: Vault, from mode: VaultMode, to sealer: any PasscodeSlotSealer, passcode: String
    ) throws(VaultError) {
        try vault.movePasscodeSlot(from: mode, to: sealer, passcode: passcode, cost: cost)
    }

    public func rekey(
        _ vault: Vault, passcode: String, sealer: any PasscodeSlotSealer, recoveryKey: RecoveryKey,
        progress: ((_ done: Int, _ total: Int) -> Void)?
    ) throws(VaultError) {
        _ = try vault.rekey(passcode: passcode, sealer: sealer, cost: cost, recoveryKey: recoveryKey, progress: progress)
    }

    public func storeID() throws(VaultError) -> UUID { try Vault.storeID(in: dataDirectory) }

    public func stageRestore(
        from backupPath: String, using credential: VaultCredential, sealers: PasscodeSealers, progress: ((_ done: Int, _ total: Int) -> Void)?
    ) throws(VaultError) -> StagedRestore {
        try Vault.stageRestore(
            from: backupPath, into: dataDirectory, using: credential, sealers: sealers, configuration: configuration,
            progress: progress)
    }

    /// Keeps the database open for the unlock that usually follows (see `PendingVault`).
    public func header() throws(VaultError) -> VaultHeader {
        let locked = try LockedVault.open(in: dataDirectory, configuration: configuration)
        pending.keep(locked)
        return locked.header
    }

    public func sealedPasscodeSlot(passcode: String, mode: VaultMode) throws(VaultError) -> SealedPasscodeSlot {
        try Vault.sealedPasscodeSlot(in: dataDirectory, passcode: passcode, mode: mode)
    }
}
