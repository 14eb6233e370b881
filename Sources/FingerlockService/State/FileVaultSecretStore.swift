public import Crypto
import FoundationEssentials
import SafeFiles
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Per-vault secrets as 32-byte 0600 files written atomically and durably (`AtomicFile`), one
/// directory per (uid, vault). A lock inside the process serialises creation and deletion, so two
/// connections registering the same vault at once make one secret, and two registering vaults of
/// one account at once cannot both take its last one.
///
/// `limits` bound the vaults per account (a user's uids with their subordinate ones, as `accounts`
/// say) and in all. A user directory is made only for a vault registered in it and removed with its
/// last vault, so the uids of a flood that were refused, or whose vaults were forgotten, leave none.
public final class FileVaultSecretStore: VaultSecretStore {
    private let layout: StateLayout
    private let limits: VaultLimits
    private let accounts: any UIDAccounts
    private let random: @Sendable () -> SymmetricKey
    private let changes = Mutex(())

    public init(
        layout: StateLayout, limits: VaultLimits = VaultLimits(), accounts: any UIDAccounts = SeparateUIDAccounts(),
        random: @escaping @Sendable () -> SymmetricKey = { SymmetricKey(size: .bits256) }
    ) {
        self.layout = layout
        self.limits = limits
        self.accounts = accounts
        self.random = random
    }

    private func secretPath(_ owner: VaultOwner) -> String { layout.vaultDirectory(owner) + "/secret" }

    public func register(_ owner: VaultOwner) throws -> Bool {
        try changes.withLock { _ in
            if try existing(owner) { return false }
            // Counted before anything is created: a refused uid gets no directory.
            let account = accounts.account(of: owner.uid)
            let (held, all) = try vaultCounts(of: account)
            if let limit = limits.refusal(held: held, all: all) {
                throw ServiceStateError(
                    .tooManyVaults(limit: limit), "\(account) has \(held) vaults, the service \(all); limit \(limit)")
            }
            let userDirectory = try PrivateDirectory(creating: layout.userDirectory(owner.uid))
            let directory = try userDirectory.subdirectory(owner.vault)
            let key = random()
            var bytes = key.withUnsafeBytes { [UInt8]($0) }
            defer { Zeroing.zero(&bytes) }
            guard bytes.count == SystemPasscodeSlot.keySize else {
                throw ServiceStateError(.io, "the random source gave \(bytes.count) bytes")
            }
            try AtomicFile.write(bytes, to: directory.appending("secret"))
            return true
        }
    }

    public func contains(_ owner: VaultOwner) throws -> Bool {
        try existing(owner)
    }

    public func secret(_ owner: VaultOwner) throws -> SymmetricKey? {
        guard try existing(owner) else { return nil }
        let path = secretPath(owner)
        try PrivateDirectory.checkFile(path)
        var bytes = try AtomicFile.read(path)
        defer { Zeroing.zero(&bytes) }
        guard bytes.count == SystemPasscodeSlot.keySize else {
            throw ServiceStateError(.damaged, "\(path) has \(bytes.count) bytes, not \(SystemPasscodeSlot.keySize)")
        }
        return SymmetricKey(data: bytes)
    }

    private func bindingPath(_ owner: VaultOwner) -> String { layout.vaultDirectory(owner) + "/slot-binding" }

    /// The contents of one of the vault's 0600 files, nil when it is missing; any error but
    /// "missing" is a failure, not a "no".
    private func readIfPresent(_ path: String) throws -> [UInt8]? {
        guard access(path, F_OK) == 0 else {
            guard errno == ENOENT else { throw ServiceStateError(.io, "cannot inspect \(path) (errno \(errno))") }
            return nil
        }
        try PrivateDirectory.checkFile(path)
        return try AtomicFile.read(path)
    }

    public func binding(_ owner: VaultOwner) throws -> SlotBinding? {
        let path = bindingPath(owner)
        guard let bytes = try readIfPresent(path) else { return nil }
        guard let binding = SlotBinding(encoded: bytes) else {
            throw ServiceStateError(.damaged, "\(path) is not \(SlotBinding.encodedSize) bytes")
        }
        return binding
    }

    public func setBinding(_ binding: SlotBinding, for owner: VaultOwner) throws {
        try changes.withLock { _ in
            guard try existing(owner) else { throw ServiceStateError(.io, "the vault has no secret") }
            try AtomicFile.write(binding.encoded, to: bindingPath(owner))
        }
    }

    private func policyPath(_ owner: VaultOwner) -> String { layout.vaultDirectory(owner) + "/policy" }

    public func policy(_ owner: VaultOwner) throws -> ServiceVaultPolicy? {
        let path = policyPath(owner)
        guard let bytes = try readIfPresent(path) else { return nil }
        guard bytes.count <= 4096, let policy = try? JSONDecoder().decode(ServiceVaultPolicy.self, from: Data(bytes)),
            policy.isWithinBounds
        else {
            throw ServiceStateError(.damaged, "\(path) is not a policy within the settings' bounds")
        }
        return policy
    }

    public func setPolicy(_ policy: ServiceVaultPolicy, for owner: VaultOwner) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let bytes = [UInt8](try encoder.encode(policy))
        try changes.withLock { _ in
            guard try existing(owner) else { throw ServiceStateError(.io, "the vault has no secret") }
            try AtomicFile.write(bytes, to: policyPath(owner))
        }
    }

    public func forget(_ owner: VaultOwner) throws {
        try changes.withLock { _ in
            let directory = layout.vaultDirectory(owner)
            // The secret goes first: once it is gone the slot is dead, whatever is left behind.
            for name in ["secret", "slot-binding", "policy", "attempts", "attempts.json", "attempts-in-flight"] {
                _ = try AtomicFile.remove(directory + "/" + name)
            }
            let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            // Temporary files, the templates and the accepted fprintd fingers (sealed under the
            // secret, so dead already).
            for name in leftovers
            where name.hasPrefix(".") || name.hasPrefix(FileTemplateStore.prefix) || name == FileTemplateStore.acceptedFile {
                _ = try AtomicFile.remove(directory + "/" + name)
            }
            if rmdir(directory) != 0 && errno != ENOENT {
                throw ServiceStateError(.io, "cannot remove \(directory) (errno \(errno))")
            }
            let userDirectory = layout.userDirectory(owner.uid)
            // The user directory goes with its last vault (ENOTEMPTY otherwise: it stays).
            if rmdir(userDirectory) == 0 {
                try AtomicFile.syncDirectory(layout.root.appending("v1"))
            } else if errno != ENOENT {
                try AtomicFile.syncDirectory(userDirectory)
            }
        }
    }

    /// The vaults of `account`'s uids and of everyone, as the state directory holds them now (the
    /// caller holds `changes`). Read each time rather than kept: nothing to drift from the files.
    /// The directories read are the users' with vaults (at most `limits.total`), and any empty
    /// ones an earlier version left.
    private func vaultCounts(of account: UIDAccount) throws -> (held: Int, all: Int) {
        let users = layout.root.appending("v1")
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: users)
        } catch {
            throw ServiceStateError(.io, "cannot list \(users): \(error)")
        }
        var held = 0
        var all = 0
        for name in names {
            guard let uid = UInt32(name) else { continue }
            let vaults = (try? FileManager.default.contentsOfDirectory(atPath: users + "/" + name)) ?? []
            let count = vaults.filter { !$0.hasPrefix(".") }.count
            all += count
            if count > 0 && accounts.account(of: uid) == account { held += count }
        }
        return (held, all)
    }

    /// Whether the secret file exists; any error but "missing" is a failure, not a "no".
    private func existing(_ owner: VaultOwner) throws -> Bool {
        var info = stat()
        if lstat(secretPath(owner), &info) == 0 { return true }
        guard errno == ENOENT || errno == ENOTDIR else {
            throw ServiceStateError(.io, "cannot inspect \(secretPath(owner)) (errno \(errno))")
        }
        return false
    }
}
