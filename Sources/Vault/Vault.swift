public import Crypto
public import Foundation
import GRDB
import SafeFiles
import Synchronization

/// The encrypted note store (see the design's "The vault").
///
/// Opened with a passcode, the recovery key or a store master key; knows nothing about readers or
/// policy. Every method is synchronous and safe to call from any thread; writers in different
/// processes are serialised by `flock` on `vault.lock` and wait (bounded) for each other.
///
/// `close()` (or releasing the vault) drops every key: swift-crypto zeroes a `SymmetricKey`'s
/// storage when its last reference goes.
public final class Vault: Sendable {
    struct Unlocked: Sendable {
        var keys: KeyHierarchy
        var kind: VaultKind
        var mode: VaultMode = .user
    }

    let files: VaultFiles
    let configuration: VaultConfiguration
    let database: DatabaseQueue
    let state: Mutex<Unlocked?>
    private let keeping = Mutex(NoteRetention())

    init(files: VaultFiles, configuration: VaultConfiguration, database: DatabaseQueue, unlocked: Unlocked) {
        self.files = files
        self.configuration = configuration
        self.database = database
        self.state = Mutex(unlocked)
    }

    /// How many revisions per note and how long trashed notes are kept, from the next write on.
    public var retention: NoteRetention {
        get { keeping.withLock { $0 } }
        set { keeping.withLock { $0 = newValue } }
    }

    /// The data directory this vault lives in.
    public var directory: String { files.directory }

    /// The store id (stable across passcode changes and rekeys); names the key-cache entry.
    public var storeID: UUID {
        get throws(VaultError) { try unlocked().keys.storeID }
    }

    /// Test or hardware vault, as recorded at creation under the slot-table MAC.
    public var kind: VaultKind {
        get throws(VaultError) { try unlocked().kind }
    }

    /// The store master key, for the key cache. Treat it like the passcode.
    public func exportMasterKey() throws(VaultError) -> SymmetricKey {
        try unlocked().keys.master
    }

    /// Forgets the keys and closes the database. Any later call fails with `.closed`.
    public func close() {
        state.withLock { $0 = nil }
        try? database.close()
    }

    func unlocked() throws(VaultError) -> Unlocked {
        guard let unlocked = state.withLock({ $0 }) else { throw .closed }
        return unlocked
    }

    // MARK: - Opening

    /// Whether `directory` holds a vault database (without checking or unlocking it).
    public static func exists(in directory: String) -> Bool {
        VaultFiles(directory: directory).databaseExists
    }

    /// The store id, read without unlocking, so the key cache entry can be found before the key is
    /// known. Unauthenticated: the key found with it is checked by `open` before use.
    public static func storeID(in directory: String) throws(VaultError) -> UUID {
        try unauthenticatedMeta(in: directory).storeID
    }

    /// The meta row, read without unlocking (store id, kind, mode): nothing in it is trusted until
    /// a key opens the vault and the slot-table MAC confirms it.
    static func unauthenticatedMeta(in directory: String) throws(VaultError) -> MetaRow {
        try unauthenticatedRead(in: directory) { db in try MetaRow.read(db) }
    }

    /// Reads from the vault's database without unlocking it; nothing read is trusted.
    static func unauthenticatedRead<T>(in directory: String, _ body: (Database) throws -> T) throws(VaultError) -> T {
        let files = VaultFiles(directory: directory)
        try files.checkPermissions()
        guard files.databaseExists else { throw VaultError(.notFound, "No vault in \(directory): set a passcode first.") }
        return try guarded {
            let queue = try openDatabase(files.database)
            defer { try? queue.close() }
            return try queue.read { db in
                _ = try VaultSchema.inspectVault(db, path: files.database)
                return try body(db)
            }
        }
    }

    /// Opens an existing vault. A wrong passcode or recovery key, or a master key that is not this
    /// vault's (checked against the key-check value before it is used), is refused.
    /// A passcode opens the slot through the sealer `sealers` has for the vault's mode.
    public static func open(
        in directory: String, using credential: VaultCredential, sealers: PasscodeSealers = .vaultOnly,
        configuration: VaultConfiguration = .init()
    ) throws(VaultError) -> Vault {
        let locked = try LockedVault.open(in: directory, configuration: configuration)
        // On failure the connection closes with `locked`; on success the vault owns it.
        return try locked.unlock(using: credential, sealers: sealers)
    }

    /// Opens the vault with a store master key looked up by the store id (the key cache names its entry
    /// after it), reading the database once — where `storeID(in:)` followed by `open(in:using:)` opens
    /// it twice. Returns nil, with nothing kept open, when `masterKey` has no key for the id; a key it
    /// returns is checked exactly as a `.masterKey` credential is (`wrongKey` when it is not this
    /// vault's). Errors thrown by `masterKey` pass through unchanged.
    public static func open(
        in directory: String, masterKeyFor masterKey: (UUID) throws -> SymmetricKey?,
        configuration: VaultConfiguration = .init()
    ) throws -> Vault? {
        try LockedVault.open(in: directory, configuration: configuration).unlock(masterKeyFor: masterKey)
    }

    /// Creates a vault protected by `passcode` and returns it open, with the recovery key to show
    /// the user once. `cost` is `.calibrated` except in tests. With `joining`, the vault is another
    /// machine's copy of a synced vault: same store id and master key, this machine's slots.
    public static func create(
        in directory: String, passcode: String, kind: VaultKind, cost: KDFCost = .calibrated,
        recoveryKey: RecoveryKey = .generate(), configuration: VaultConfiguration = .init(),
        sealer: any PasscodeSlotSealer = VaultPasscodeSealer(), joining: VaultJoinKey? = nil
    ) throws(VaultError) -> (vault: Vault, recoveryKey: RecoveryKey) {
        let files = VaultFiles(directory: directory)
        try guarded { _ = try PrivateDirectory(creating: files.directory) }
        try files.checkPermissions()
        // Derive the slots before taking the lock: calibration takes about a second. A machine
        // joining a synced vault takes its store id and master key; its slots are its own.
        let storeID = joining?.storeID ?? UUID()
        let keys = KeyHierarchy(master: joining?.master ?? KeyHierarchy.randomMaster(), storeID: storeID)
        // A user-mode sealer only (a vault is created in user mode), possibly binding the slot to a TPM.
        guard sealer.mode == .user else { throw VaultError(.invalidInput, "A vault is created in user mode.") }
        let passcodeSlot = try KeySlot.makePasscode(passcode, cost: cost, keys: keys, sealer: sealer).slot
        let recoverySlot: KeySlot
        if let joining {
            recoverySlot = joining.recoverySlot
        } else {
            recoverySlot = try guarded { try KeySlot.makeRecovery(recoveryKey, keys: keys) }
        }
        let slots = [passcodeSlot, recoverySlot]
        let lock = try files.acquireLock(timeout: configuration.lockTimeout)
        defer { withExtendedLifetime(lock) {} }
        if !files.databaseExists { try VaultFiles.createPrivateFile(files.database) }
        try files.checkPermissions()
        return try guarded {
            let queue = try openDatabase(files.database)
            do {
                let state = try queue.read { db in try VaultSchema.inspect(db, path: files.database) }
                if state.isVault {
                    throw VaultError(.alreadyExists, "A vault already exists in \(files.directory).")
                }
                if state == .empty {
                    try queue.writeWithoutTransaction { db in
                        if let pageSize = configuration.pageSize {
                            try db.execute(sql: "PRAGMA page_size = \(pageSize)")
                        }
                        // WAL: readers never wait for a writer; one fsync per commit with synchronous=FULL.
                        _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
                    }
                }
                try VaultSchema.migrator.migrate(queue)
                // Slots, their MAC, the key check and the empty manifest arrive in one transaction.
                try queue.write { db in
                    let meta = MetaRow(
                        formatVersion: VaultSchema.formatVersion, storeID: storeID, kind: kind, keyCheck: keys.keyCheck,
                        slotMAC: KeySlot.tableMAC(slots, kind: kind, mode: .user, keys: keys),
                        manifest: try Manifest().sealed(with: keys))
                    try KeySlot.replaceAll(slots, db)
                    try meta.insert(db)
                }
                let vault = Vault(
                    files: files, configuration: configuration, database: queue,
                    unlocked: Unlocked(keys: keys, kind: kind))
                return (vault, recoveryKey)
            } catch {
                try? queue.close()
                throw error
            }
        }
    }

    /// Checks a credential against the meta row and slot table read from the database: the key
    /// check value first (a planted key goes no further), then the slot-table MAC and the manifest.
    static func unlock(
        meta: MetaRow, slots: [KeySlot], credential: VaultCredential, sealers: PasscodeSealers
    ) throws(VaultError) -> Unlocked {
        let master: SymmetricKey
        switch credential {
        case .passcode(let passcode):
            // The mode read here is not yet authenticated: flipped, the slot of the mode it names is
            // missing (tampered), or its sealer opens another mode's slot under the wrong associated
            // data, and failing that the MAC fails.
            let sealer = try sealers.sealer(for: meta.mode)
            guard let slot = slots.first(where: { $0.name == KeySlot.passcodeName(meta.mode) }) else {
                throw .tampered("slot table")
            }
            master = try slot.unwrap(passcode: passcode, storeID: meta.storeID, sealer: sealer)
        case .recoveryKey(let text):
            guard let key = RecoveryKey(parsing: text) else {
                throw VaultError(
                    .invalidInput, "That is not a recovery key: it has 52 letters and digits, shown in 13 groups of 4.")
            }
            guard let slot = slots.first(where: { $0.name == KeySlot.recovery }) else { throw .tampered("slot table") }
            master = try slot.unwrap(recoveryKey: key, storeID: meta.storeID)
        case .masterKey(let key):
            master = key
        }
        let keys = KeyHierarchy(master: master, storeID: meta.storeID)
        guard master.bitCount == 256, keys.matches(keyCheck: meta.keyCheck) else {
            if case .masterKey = credential {
                throw VaultError(.wrongKey, "The cached key does not belong to this vault; unlock with the passcode.")
            }
            // The slot opened (so the passcode was right) but holds another key: a slot from an
            // older copy of the vault was put back.
            throw .tampered("slot table")
        }
        // A passcode slot with forged cost fields still lets the recovery key (or a cached key) in.
        guard KeySlot.verifiedTable(meta.slotMAC, slots, kind: meta.kind, mode: meta.mode, keys: keys) != nil else {
            throw .tampered("slot table")
        }
        _ = try Manifest.open(meta.manifest, with: keys)
        return Unlocked(keys: keys, kind: meta.kind, mode: meta.mode)
    }

    static func openDatabase(_ path: String, readonly: Bool = false) throws -> DatabaseQueue {
        var config = Configuration()
        config.readonly = readonly
        config.busyMode = .timeout(10)
        config.label = "fingerlock.vault"
        config.prepareDatabase { db in
            // FULL: a commit is on disk when it returns. secure_delete: freed pages are zeroed
            // (they only ever held ciphertext, but stale ciphertext helps nobody). temp_store:
            // sorts and temp tables stay in memory. cell_size_check: corrupt pages are caught
            // early rather than read. trusted_schema off: a tampered schema runs no functions.
            try db.execute(
                sql: """
                    PRAGMA synchronous = FULL;
                    PRAGMA secure_delete = ON;
                    PRAGMA temp_store = MEMORY;
                    PRAGMA cell_size_check = ON;
                    PRAGMA trusted_schema = OFF;
                    """)
        }
        return try DatabaseQueue(path: path, configuration: config)
    }

    // MARK: - Transactions

    /// A read transaction with the current keys and the verified manifest. The key-check value is
    /// compared first: if another process rekeyed or restored the vault, nothing is decrypted.
    func read<T>(_ body: (Database, KeyHierarchy, Manifest) throws -> T) throws(VaultError) -> T {
        let keys = try unlocked().keys
        return try guarded {
            try database.read { db in
                let meta = try MetaRow.read(db)
                try Self.checkStillOurs(meta, keys)
                return try body(db, keys, try Manifest.open(meta.manifest, with: keys))
            }
        }
    }

    /// A write transaction under the process lock, with the current keys and the manifest to
    /// update; the manifest is resealed in the same transaction as the rows it counts. A version-1
    /// manifest is upgraded first, so `body` always sees per-bucket note tallies.
    func write<T>(_ body: (Database, KeyHierarchy, inout Manifest) throws -> T) throws(VaultError) -> T {
        try writeChecked { db, keys, meta in
            let original = try Manifest.open(meta.manifest, with: keys)
            var manifest = original
            try Self.upgradeManifest(&manifest, db, keys)
            let result = try body(db, keys, &manifest)
            if manifest != original {
                try db.execute(
                    sql: "UPDATE meta SET manifest = ? WHERE singleton = 1",
                    arguments: [try manifest.sealed(with: keys)])
            }
            return result
        }
    }

    /// A write transaction under the process lock, after checking that the vault on disk is still
    /// the one our keys belong to (so a key that is not the vault's never encrypts new data). Takes
    /// the lock unless the caller holds it already (`holding`).
    func writeChecked<T>(holding held: FileLock? = nil, _ body: (Database, KeyHierarchy, MetaRow) throws -> T)
        throws(VaultError) -> T
    {
        let keys = try unlocked().keys
        let lock: FileLock
        if let held { lock = held } else { lock = try files.acquireLock(timeout: configuration.lockTimeout) }
        defer { withExtendedLifetime(lock) {} }
        return try guarded {
            try database.write { db in
                let meta = try MetaRow.read(db)
                try Self.checkStillOurs(meta, keys)
                return try body(db, keys, meta)
            }
        }
    }

    static func checkStillOurs(_ meta: MetaRow, _ keys: KeyHierarchy) throws {
        guard meta.storeID == keys.storeID, keys.matches(keyCheck: meta.keyCheck) else {
            throw VaultError(
                .wrongKey,
                "The vault was rekeyed or restored by another fingerlock process meanwhile; nothing was changed: run the command again.")
        }
    }

    func now() -> Date { configuration.now() }
}

extension Vault {
    /// The connection's durability and privacy pragmas, for tests to check what is really in force.
    package func connectionSettings() throws(VaultError) -> [String: String] {
        try guarded {
            try database.read { db in
                var result: [String: String] = [:]
                for name in ["journal_mode", "synchronous", "secure_delete", "temp_store"] {
                    result[name] = try String.fetchOne(db, sql: "PRAGMA \(name)")
                }
                return result
            }
        }
    }
}
