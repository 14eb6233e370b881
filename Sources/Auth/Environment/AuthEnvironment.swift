public import AuthCore
public import Fingerprint
public import Foundation
import Synchronization
public import TrustedPlatform
import Vault

/// What every use case of one command shares: the injected collaborators, the vault header read
/// once, the ledgers over this user's counters, and the vault's custody (`custody`, chosen from the
/// recorded mode in `KeyCustody.swift`, the one place the mode decides, and held for the command). Made once per command
/// and handed to `AuthContext` and to the use cases (`Enrollment`, `PasscodeManagement`, …), which
/// take what they need from it. Only the executable assembles the real collaborators.
public final class AuthEnvironment: Sendable {
    public struct Dependencies: Sendable {
        /// The vault behind its key slots: where the passcode lives.
        public var passcodes: any PasscodeRepository
        /// The reader in effect (nil when none is connected, with the problem when enumerating failed:
        /// no permission, busy…), possibly still being found.
        public var readerLookup: ReaderLookup
        /// Every connected reader, for work that concerns them all (forgetting a finger deletes its
        /// copy from each reader's own storage).
        public var connectedReaders: @Sendable () async -> [any FingerprintReader]
        public var keyCache: any KeyCache
        /// Where the reuse window's markers live: apart from the keys, so `lock` counts keys only.
        public var reuseMarkers: any KeyCache
        public var attempts: any AttemptStore
        public var interaction: any AuthInteraction
        /// Why this is a remote session (so the finger is skipped), or nil for a local one.
        public var remoteSession: @Sendable () -> String?
        public var now: @Sendable () -> Date
        /// Whether the reader chosen (even if absent right now) is a test reader; fixes the kind of
        /// a vault created now. Nil: judged from the reader found.
        public var testReaderChosen: Bool?
        /// fingerlockd, for a system-mode vault: its passcode slot, key, counters, reader and fingers.
        public var systemService: any SystemService
        /// The TPM a passcode slot may be bound to (asked only for a bound slot, or to bind one).
        public var tpm: any TrustedPlatformModule
        /// fprintd, for a vault that accepted the fingers it keeps (nil where it is not offered):
        /// asked only by such a vault, or when fprintd was chosen (`fprintdChosen`).
        public var fprintd: (any FprintdFingers)?
        /// `--reader fprintd`: enrolling accepts (or enrolls through) fprintd's fingers.
        public var fprintdChosen: Bool

        public init(
            passcodes: any PasscodeRepository, readerLookup: ReaderLookup, keyCache: any KeyCache,
            reuseMarkers: any KeyCache, attempts: any AttemptStore, interaction: any AuthInteraction,
            remoteSession: @escaping @Sendable () -> String?, now: @escaping @Sendable () -> Date,
            connectedReaders: @escaping @Sendable () async -> [any FingerprintReader] = { [] },
            testReaderChosen: Bool? = nil, systemService: any SystemService = NoSystemService(),
            tpm: any TrustedPlatformModule = ESAPIModule(), fprintd: (any FprintdFingers)? = nil,
            fprintdChosen: Bool = false
        ) {
            self.fprintd = fprintd
            self.fprintdChosen = fprintdChosen
            self.passcodes = passcodes
            self.readerLookup = readerLookup
            self.keyCache = keyCache
            self.reuseMarkers = reuseMarkers
            self.attempts = attempts
            self.interaction = interaction
            self.remoteSession = remoteSession
            self.now = now
            self.connectedReaders = connectedReaders
            self.testReaderChosen = testReaderChosen
            self.systemService = systemService
            self.tpm = tpm
        }
    }

    let dependencies: Dependencies
    /// The vault's store id and recorded mode, read once per environment (each read opens the
    /// database) and forgotten when `system enable`/`disable`, a passcode reset or a restore may
    /// change them. Nil until read, or when there is no vault yet.
    private let recordedHeader = Mutex<VaultHeader?>(nil)
    /// The vault's custody, chosen from the mode when the header is read and held for the command
    /// (`custody`, in `KeyCustody.swift`); let go with the header. The custodies keep this
    /// environment `unowned`, so holding them here makes no cycle.
    private let custodyHeld = Mutex<(mode: VaultMode, custody: any KeyCustody)?>(nil)
    /// Whether the session is remote, asked at most once (see `RemoteSessionCheck`).
    let remoteSessionCheck: RemoteSessionCheck

    public init(_ dependencies: Dependencies) {
        self.dependencies = dependencies
        remoteSessionCheck = RemoteSessionCheck(dependencies.remoteSession)
    }

    var passcodes: any PasscodeRepository { dependencies.passcodes }
    var interaction: any AuthInteraction { dependencies.interaction }
    var systemService: any SystemService { dependencies.systemService }
    /// The rules both modes host, over this user's counters and keyring.
    var touchLedger: TouchLedger { TouchLedger(dependencies.attempts) }
    var passcodeLedger: PasscodeLedger { PasscodeLedger(dependencies.attempts, now: dependencies.now) }
    var reuseWindow: ReuseWindow { ReuseWindow(markers: dependencies.reuseMarkers, now: dependencies.now) }
    /// The same window, opened only by the passcode (never a touch): what `enroll` may reuse.
    var passcodeWindow: ReuseWindow { ReuseWindow(markers: dependencies.reuseMarkers, suffix: ":passcode", now: dependencies.now) }

    // MARK: - The recorded header

    /// The vault's mode as recorded (unauthenticated; the slot-table MAC checks it at unlock).
    /// A vault that cannot be read is treated as user mode here; opening it reports the problem.
    var vaultMode: VaultMode {
        guard passcodes.hasPasscode, let header = try? recordedVaultHeader() else { return .user }
        return header.mode
    }

    /// The store id (unauthenticated, like the mode): from the header already read for the mode,
    /// so a system-mode command reads the database once before the key is known, not twice.
    var recordedStoreID: UUID {
        get throws { try recordedVaultHeader().storeID }
    }

    /// Forgets the header read, and the custody chosen from it: the mode (or the whole vault) may
    /// be about to change.
    func forgetRecordedHeader() {
        recordedHeader.withLock { $0 = nil }
        custodyHeld.withLock { $0 = nil }
    }

    /// The custody held for this command, chosen from the recorded mode on first use.
    var heldCustody: (mode: VaultMode, custody: any KeyCustody) {
        if let held = custodyHeld.withLock({ $0 }) { return held }
        let mode = vaultMode
        return custodyHeld.withLock { held in
            if let held { return held }
            let chosen = (mode, custody(for: mode))
            held = chosen
            return chosen
        }
    }

    /// The header, read on first use and kept (see `recordedHeader`).
    private func recordedVaultHeader() throws -> VaultHeader {
        if let known = recordedHeader.withLock({ $0 }) { return known }
        let header = try AuthError.mapped { try passcodes.header() }
        recordedHeader.withLock { $0 = header }
        return header
    }
}
