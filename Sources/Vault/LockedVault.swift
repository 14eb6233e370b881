public import Crypto
public import Foundation
import GRDB
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A vault's database opened but not unlocked: its header read, its connection kept, so that the
/// unlock that follows (with a cached key, a key the system service released, or the passcode) reads the
/// same connection instead of opening the database a second time.
///
/// `unlock` checks the permissions again and uses the meta row, the key slots and the schema state
/// as they are then, in one read transaction, exactly as `Vault.open` does, so a passcode changed,
/// a rekey or a schema upgrade in between are seen: what the open read is used again only while
/// SQLite's `data_version` says no other connection has committed since (it changes with every
/// commit of another connection), and read afresh otherwise. A database file replaced since (a
/// restore renames a new one into place) is not the file this connection reads: `isCurrent` says
/// so, and the caller opens it again.
public final class LockedVault: Sendable {
    let files: VaultFiles
    let configuration: VaultConfiguration
    let database: DatabaseQueue
    /// The store id and mode as read when it was opened (unauthenticated).
    public let header: VaultHeader
    /// What the open read, for an unlock that finds the database unchanged since.
    private let opened: Snapshot
    /// The database file's device and inode, taken before it was opened: a file replaced between
    /// that and the open makes `isCurrent` false (a needless reopen), never true for another file.
    private let fileIdentity: FileIdentity
    /// Set once a `Vault` owns the connection or this closed it: from then on this neither closes
    /// it nor hands it over. Claimed in one step (`claim()`), so a `close()` racing an unlock
    /// either closes a connection no vault got, or leaves alone the one a vault got.
    private let released = Mutex(false)

    /// Everything an unlock reads, with the data version of the read transaction it came from.
    private struct Snapshot: Sendable {
        var meta: MetaRow
        /// Nil when they could not be read: the open does not fail on them (the header read only
        /// chooses the way in), and the unlock reads them again, failing as `Vault.open` does.
        var slots: [KeySlot]?
        var state: VaultSchema.State
        /// Nil when SQLite did not say: never taken as unchanged.
        var dataVersion: Int64?

        /// The open's read, in the caller's transaction: the schema checked first, as at every open.
        static func read(_ db: Database, path: String) throws -> Snapshot {
            let state = try VaultSchema.inspectVault(db, path: path)
            return Snapshot(meta: try MetaRow.read(db), slots: try? KeySlot.readAll(db), state: state, dataVersion: try dataVersion(db))
        }

        static func dataVersion(_ db: Database) throws -> Int64? {
            try Int64.fetchOne(db, sql: "PRAGMA data_version")
        }

        /// What an unlock in `db`'s transaction uses: this, if no other connection has committed
        /// since; else everything read afresh, slots included (failing here as `Vault.open` does).
        func current(_ db: Database, path: String) throws -> (MetaRow, [KeySlot], VaultSchema.State) {
            if let dataVersion, let slots, try Snapshot.dataVersion(db) == dataVersion { return (meta, slots, state) }
            let state = try VaultSchema.inspectVault(db, path: path)
            return (try MetaRow.read(db), try KeySlot.readAll(db), state)
        }
    }

    private init(
        files: VaultFiles, configuration: VaultConfiguration, database: DatabaseQueue, opened: Snapshot,
        fileIdentity: FileIdentity
    ) {
        self.files = files
        self.configuration = configuration
        self.database = database
        self.opened = opened
        header = VaultHeader(storeID: opened.meta.storeID, mode: opened.meta.mode)
        self.fileIdentity = fileIdentity
    }

    deinit { close() }

    /// Opens the vault's database in `directory` after the same checks as `Vault.open` and reads its
    /// header; unlocks nothing.
    public static func open(in directory: String, configuration: VaultConfiguration = .init())
        throws(VaultError) -> LockedVault
    {
        let files = VaultFiles(directory: directory)
        try files.checkPermissions()
        guard files.databaseExists, let identity = FileIdentity(path: files.database) else {
            throw VaultError(.notFound, "No vault in \(directory): set a passcode first.")
        }
        return try guarded {
            let queue = try Vault.openDatabase(files.database)
            do {
                let opened = try queue.read { db in try Snapshot.read(db, path: files.database) }
                return LockedVault(files: files, configuration: configuration, database: queue, opened: opened, fileIdentity: identity)
            } catch {
                try? queue.close()
                throw error
            }
        }
    }

    /// Whether the vault's path still names the file this connection reads, and it is still free
    /// to unlock (neither handed to a `Vault` nor closed).
    public var isCurrent: Bool {
        !released.withLock { $0 } && FileIdentity(path: files.database) == fileIdentity
    }

    /// Unlocks with `credential`, checked as `Vault.open(in:using:)` checks it (a passcode through
    /// the sealer `sealers` has for the vault's mode). On success the returned vault owns the
    /// connection; on failure this stays open, for another try.
    public func unlock(using credential: VaultCredential, sealers: PasscodeSealers = .vaultOnly) throws(VaultError)
        -> Vault
    {
        let (meta, slots, state) = try readForUnlock()
        let unlocked = try Vault.unlock(meta: meta, slots: slots, credential: credential, sealers: sealers)
        return try handOver(unlocked, upgrading: state)
    }

    /// Unlocks with the store master key `masterKey` finds for the store id, checked as a
    /// `.masterKey` credential is; nil (and still open) when it finds none. Errors `masterKey`
    /// throws pass through unchanged.
    public func unlock(masterKeyFor masterKey: (UUID) throws -> SymmetricKey?) throws -> Vault? {
        let (meta, slots, state) = try readForUnlock()
        guard let key = try masterKey(meta.storeID) else { return nil }
        let unlocked = try Vault.unlock(meta: meta, slots: slots, credential: .masterKey(key), sealers: .vaultOnly)
        return try handOver(unlocked, upgrading: state)
    }

    /// Closes the connection unless a `Vault` owns it; a later unlock throws `.closed`.
    public func close() {
        if claim() { try? database.close() }
    }

    /// Takes the connection for the caller (a close or a hand-over) if nobody has yet.
    private func claim() -> Bool {
        released.withLock { taken in
            defer { taken = true }
            return !taken
        }
    }

    private func readForUnlock() throws(VaultError) -> (MetaRow, [KeySlot], VaultSchema.State) {
        try files.checkPermissions()
        // Read under the lock `close()` takes, so it cannot close the connection mid-read.
        return try released.withLock { taken throws(VaultError) in
            guard !taken else { throw .closed }
            return try guarded {
                try database.read { db in try opened.current(db, path: files.database) }
            }
        }
    }

    private func handOver(_ unlocked: Vault.Unlocked, upgrading state: VaultSchema.State) throws(VaultError) -> Vault {
        // Of two unlocks (or an unlock and a close) racing on one connection, one gets it; then
        // nothing else closes it.
        guard claim() else { throw .closed }
        // Only once the key proved this vault ours: an older vault gets its newer indexes.
        if state == .vault(needsUpgrade: true) {
            do {
                try guarded { try VaultSchema.upgrade(database, files: files, configuration: configuration) }
            } catch {
                try? database.close()
                throw error
            }
        }
        return Vault(files: files, configuration: configuration, database: database, unlocked: unlocked)
    }
}

/// A file's device and inode: which file a path named when it was taken.
struct FileIdentity: Equatable, Sendable {
    let device: UInt64
    let inode: UInt64

    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }
}
