import Foundation
import GRDB
import SafeFiles
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension Vault {
    /// Writes a consistent encrypted copy of the vault to `path` (0600, durable, atomic) with the
    /// SQLite backup API, after verifying the vault so a damaged vault is not copied as good.
    /// The copy opens with the passcode and recovery key valid now.
    public func backup(to path: String) throws(VaultError) {
        try verifyIntegrity()
        let temp = VaultFiles.temporaryName(near: path, "tmp")
        try VaultFiles.createPrivateFile(temp)
        do {
            try guarded {
                let copy = try DatabaseQueue(path: temp)
                try database.backup(to: copy)
                try copy.close()
                // A single self-contained file: leave WAL mode so no -wal/-shm is needed beside it.
                let reopened = try DatabaseQueue(path: temp)
                try reopened.writeWithoutTransaction { db in
                    _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = DELETE")
                }
                try reopened.close()
            }
            try VaultFiles.syncFile(temp)
            guard rename(temp, path) == 0 else { throw VaultError.fromErrno(errno, "write \(path)") }
            try guarded { try AtomicFile.syncDirectory(AtomicFile.parentDirectory(of: path)) }
        } catch {
            VaultFiles.removeDatabaseFiles(temp)
            throw VaultError.from(error)
        }
    }

    /// Replaces this vault's contents with a backup. The backup is opened with `credential` (by
    /// default this vault's current key, which works unless the vault was rekeyed since), its slot
    /// table, manifest and every row verified, and only then copied in — atomically, in one SQLite
    /// transaction under the lock — so a bad backup leaves the current vault untouched.
    public func restore(from backupPath: String, using credential: VaultCredential? = nil) throws(VaultError) {
        let current = try unlocked()
        let restored = try Self.restore(
            from: backupPath, files: files, credential: credential ?? .masterKey(current.keys.master),
            configuration: configuration, into: database)
        state.withLock { $0 = restored }
    }

    /// Restores a backup into `directory`, creating the vault there if there is none, and returns
    /// it open. See `restore(from:using:)`.
    public static func restore(
        from backupPath: String, into directory: String, using credential: VaultCredential,
        configuration: VaultConfiguration = .init()
    ) throws(VaultError) -> Vault {
        let files = VaultFiles(directory: directory)
        try guarded { _ = try PrivateDirectory(creating: files.directory) }
        try files.checkPermissions()
        var created = false
        do {
            // Held only while the file is created; the copy below takes it again.
            let lock = try files.acquireLock(timeout: configuration.lockTimeout)
            if !files.databaseExists {
                try VaultFiles.createPrivateFile(files.database)
                created = true
            }
            withExtendedLifetime(lock) {}
        }
        // A failed restore (wrong passcode, bad backup) into an empty directory leaves nothing
        // behind: no half-made vault that would then refuse both `restore` and `passcode set`.
        var succeeded = false
        defer { if created && !succeeded { VaultFiles.removeDatabaseFiles(files.database) } }
        return try guarded {
            let live = try openDatabase(files.database)
            do {
                let state = try live.read { db in try VaultSchema.inspect(db, path: files.database) }
                if state == .empty {
                    try live.writeWithoutTransaction { db in _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL") }
                }
                let unlocked = try restore(
                    from: backupPath, files: files, credential: credential, configuration: configuration, into: live)
                succeeded = true
                return Vault(files: files, configuration: configuration, database: live, unlocked: unlocked)
            } catch {
                try? live.close()
                throw error
            }
        }
    }

    /// Stages the backup as a private copy in the data directory, verifies it completely, then
    /// copies it over `live` under the lock.
    private static func restore(
        from backupPath: String, files: VaultFiles, credential: VaultCredential, configuration: VaultConfiguration,
        into live: DatabaseQueue
    ) throws(VaultError) -> Unlocked {
        let bytes = try guarded { try AtomicFile.read(backupPath) }
        let staged = VaultFiles.temporaryName(near: files.database, "restore")
        defer { VaultFiles.removeDatabaseFiles(staged) }
        try guarded { try AtomicFile.write(bytes, to: staged) }
        return try guarded {
            let queue = try openDatabase(staged)
            defer { try? queue.close() }
            let (meta, slots) = try queue.read { db in
                guard try VaultSchema.inspect(db, path: backupPath) == .vault else {
                    throw VaultError(.notAVault, "\(backupPath) is not a fingerlock backup.")
                }
                return (try MetaRow.read(db), try KeySlot.readAll(db))
            }
            let unlocked = try unlock(meta: meta, slots: slots, credential: credential)
            let check = Vault(files: files, configuration: configuration, database: queue, unlocked: unlocked)
            try check.verifyIntegrity()
            let lock = try files.acquireLock(timeout: configuration.lockTimeout)
            defer { withExtendedLifetime(lock) {} }
            try live.read { db in
                if try VaultSchema.inspect(db, path: files.database) == .vault, let current = try? MetaRow.read(db),
                    current.formatVersion != meta.formatVersion
                {
                    throw VaultError(.unsupportedFormat, "The backup's format does not match this vault's.")
                }
            }
            // One step, one transaction on the live database: all of the backup or none of it.
            try queue.backup(to: live)
            return unlocked
        }
    }
}
