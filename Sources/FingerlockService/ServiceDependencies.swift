public import AuthCore
public import FoundationEssentials
public import Logging
import SafeFiles
public import TrustedPlatform

/// Everything the service's policy works with, handed in: tests give a temporary state directory,
/// a clock they move and a logger they read; only `fingerlockd` assembles the real ones.
public struct ServiceDependencies: Sendable {
    public var secrets: any VaultSecretStore
    /// The attempt counters of one vault (created on first use).
    public var attempts: @Sendable (VaultOwner) throws -> any AttemptStore
    /// Unlocked keys, in the service's memory only.
    public var keyCache: any KeyCache
    /// The templates enrolled through the service.
    public var templates: any TemplateStore
    /// The reader the service scans with.
    public var readers: ServiceReaders
    public var now: @Sendable () -> Date
    public var logger: Logger
    /// Whom a uid's connections and vaults count against (a subordinate uid: its owner's).
    public var accounts: any UIDAccounts
    /// The TPM a vault's passcode slot may be bound to (asked only for bound slots).
    public var tpm: any TrustedPlatformModule
    /// The TPM failures each account has standing: its share of the machine's one counter.
    public var tpmFailures: any TPMFailureStore
    /// Who may have the reader scan: the user active and local at its seat (`fingerlockd` asks logind).
    public var seat: any SeatAccess
    /// fprintd, asking about the fingers of the user with this uid (by their name: polkit's
    /// `setusername`); nil when it cannot be asked for them (no fprintd here, or a uid with no name).
    /// Used only for the vaults that accepted fprintd's fingers (`UseFprintdFingers`).
    public var fprintd: @Sendable (UInt32) -> (any FprintdFingers)?

    public init(
        secrets: any VaultSecretStore, attempts: @escaping @Sendable (VaultOwner) throws -> any AttemptStore,
        keyCache: any KeyCache, templates: any TemplateStore, readers: ServiceReaders,
        now: @escaping @Sendable () -> Date, logger: Logger, accounts: any UIDAccounts = SeparateUIDAccounts(),
        tpm: any TrustedPlatformModule = ESAPIModule(), tpmFailures: any TPMFailureStore, seat: any SeatAccess,
        fprintd: @escaping @Sendable (UInt32) -> (any FprintdFingers)? = { _ in nil }
    ) {
        self.secrets = secrets
        self.attempts = attempts
        self.keyCache = keyCache
        self.templates = templates
        self.readers = readers
        self.now = now
        self.logger = logger
        self.accounts = accounts
        self.tpm = tpm
        self.tpmFailures = tpmFailures
        self.seat = seat
        self.fprintd = fprintd
    }

    /// The production assembly over a state directory: file secrets, `FileAttemptStore` counters
    /// and sealed templates beside them, the TPM failures' ledger at its root, an in-memory key
    /// cache on the same clock whose keys are in locked memory (logged once when the system refuses
    /// to lock it). The vaults are bounded by `vaultLimits`, counted per account as `accounts` say
    /// (`fingerlockd` hands in the system's).
    public static func files(
        stateDirectory: String, readers: ServiceReaders = .none, now: @escaping @Sendable () -> Date = { Date() },
        logger: Logger, accounts: any UIDAccounts = SeparateUIDAccounts(), vaultLimits: VaultLimits = VaultLimits(),
        tpm: any TrustedPlatformModule = ESAPIModule(), seat: any SeatAccess,
        fprintd: @escaping @Sendable (UInt32) -> (any FprintdFingers)? = { _ in nil }
    ) throws -> ServiceDependencies {
        let layout = try StateLayout(stateDirectory: stateDirectory)
        return ServiceDependencies(
            secrets: FileVaultSecretStore(layout: layout, limits: vaultLimits, accounts: accounts),
            attempts: { FileAttemptStore(dataDirectory: layout.vaultDirectory($0)) },
            keyCache: InMemoryKeyCache(
                now: now, memory: LockedMemory(warning: { logger.warning(Logger.Message(stringLiteral: $0)) })),
            templates: FileTemplateStore(layout: layout), readers: readers,
            now: now, logger: logger, accounts: accounts, tpm: tpm, tpmFailures: FileTPMFailureStore(layout: layout),
            seat: seat, fprintd: fprintd)
    }
}
