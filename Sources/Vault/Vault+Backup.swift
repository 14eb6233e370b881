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
    /// The copy opens with the passcode and recovery key valid now. Returns how many notes the copy
    /// holds (counted in the copy: a note added meanwhile by another process is in it or not).
    ///
    /// The copy is made inside the data directory, never beside `path`: SQLite opens a database's
    /// side files (`-journal`, `-wal`, `-shm`) with O_CREAT but not O_EXCL, so in a folder others can
    /// write (`/tmp`, a shared folder) someone watching for the copy's name could create them first
    /// and receive its pages, or plant a journal SQLite would roll into it. The data directory is
    /// 0700 and ours. Only the finished file's bytes then go beside `path`, into a file this process
    /// creates (O_EXCL, 0600), which is linked or renamed into place: nothing else is ever written
    /// there, and the copy works whichever file system `path` is on.
    ///
    /// `progress` hears (pages copied, pages in all) as the copy goes, 256 pages a step; without it
    /// the copy is one step.
    @discardableResult
    public func backup(to path: String, replacing: Bool = false, progress: ((Int, Int) -> Void)? = nil)
        throws(VaultError) -> Int
    {
        try Self.checkBackupTarget(path, replacing: replacing, vaultDirectory: directory)
        try verifyIntegrity()
        let staged = VaultFiles.temporaryName(near: files.database, "backup")
        defer { VaultFiles.removeDatabaseFiles(staged) }
        let count: Int
        do throws(VaultError) {
            try files.checkPermissions()
            try VaultFiles.createPrivateFile(staged)
            count = try guarded {
                let copy = try DatabaseQueue(path: staged)
                if let progress {
                    try database.backup(to: copy, pagesPerStep: 256) { step in
                        progress(step.completedPageCount, step.totalPageCount)
                    }
                } else {
                    try database.backup(to: copy)
                }
                try copy.close()
                // A single self-contained file: leave WAL mode so no -wal/-shm is needed beside it.
                let reopened = try DatabaseQueue(path: staged)
                let count = try reopened.writeWithoutTransaction { db in
                    _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = DELETE")
                    return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM notes") ?? 0
                }
                try reopened.close()
                return count
            }
        } catch {
            // The staged file's name is ours, not the user's: say which directory ran out or failed.
            if error.code == .diskFull { throw .diskFull("cannot make the backup in \(directory)") }
            throw error
        }
        do throws(VaultError) {
            try Self.copyFile(staged, to: path, replacing: replacing)
        } catch {
            throw error.message.contains(path + ".tmp-") || error.message.contains(staged) || error.code == .diskFull
                ? Self.naming(path, error) : error
        }
        return count
    }

    /// Copies the finished backup at `source` (in the data directory) to `path`: into a new 0600 file
    /// beside it (O_EXCL: no one else's), synced, then published under its name and the directory
    /// synced.
    private static func copyFile(_ source: String, to path: String, replacing: Bool) throws(VaultError) {
        let input = Glibc.open(source, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard input >= 0 else { throw VaultError.fromErrno(errno, "read \(source)") }
        defer { Glibc.close(input) }
        let (output, temp) = try guarded { try AtomicFile.createTemporary(beside: path) }
        var published = false
        defer { if !published { unlink(temp) } }
        do throws(VaultError) {
            var chunk = [UInt8](repeating: 0, count: 256 * 1024)
            while true {
                let count = chunk.withUnsafeMutableBytes { Glibc.read(input, $0.baseAddress!, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count >= 0 else { throw VaultError.fromErrno(errno, "read \(source)") }
                if count == 0 { break }
                if let error = FileDescriptorIO.writeAll(output, Array(chunk[0..<count])) {
                    throw VaultError.fromErrno(error, "write \(path)")
                }
            }
            guard fsync(output) == 0 else { throw VaultError.fromErrno(errno, "write \(path)") }
            try publish(temp, as: path, replacing: replacing)
            published = true
            // In a folder others can write, the temporary name could have been swapped for someone
            // else's file before it was published: what `path` names now must be the file written.
            var written = stat()
            var named = stat()
            guard fstat(output, &written) == 0, lstat(path, &named) == 0, written.st_dev == named.st_dev,
                written.st_ino == named.st_ino
            else {
                throw VaultError(.io, "Cannot write \(path): it was replaced by another file while the backup was written.")
            }
        } catch {
            Glibc.close(output)
            throw error
        }
        guard Glibc.close(output) == 0 else { throw VaultError.fromErrno(errno, "write \(path)") }
        try guarded { try AtomicFile.syncDirectory(AtomicFile.parentDirectory(of: path)) }
    }

    /// Whether a backup can be written to `path`, before any work (and before the caller asks for a
    /// touch or the passcode): its directory exists, and what is there already is a regular file
    /// that may be replaced. Devices, directories and other special files are never replaced.
    public static func checkBackupTarget(_ path: String, replacing: Bool, vaultDirectory: String?) throws(VaultError) {
        // Inside the data directory a backup could replace the live database under its WAL file.
        if let vaultDirectory, let parent = Self.realPath(AtomicFile.parentDirectory(of: path)),
            let home = Self.realPath(vaultDirectory), parent == home || parent.hasPrefix(home + "/")
        {
            throw VaultError(.invalidInput, "\(path) is inside the vault's data directory; write the backup somewhere else.")
        }
        var info = stat()
        if lstat(path, &info) == 0 {
            let type = info.st_mode & S_IFMT
            if type == S_IFDIR { throw VaultError(.invalidInput, "\(path) is a directory; give a file name for the backup.") }
            guard type == S_IFREG || type == S_IFLNK else {
                throw VaultError(.invalidInput, "\(path) is not a regular file; a backup never replaces it.")
            }
            guard replacing else {
                throw VaultError(.alreadyExists, "\(path) already exists; use --force to replace it.")
            }
            return
        }
        guard errno == ENOENT else { throw VaultError.fromErrno(errno, "write \(path)") }
        let directory = AtomicFile.parentDirectory(of: path)
        guard stat(directory, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw VaultError(.invalidInput, "Cannot write \(path): the directory \(directory) does not exist.")
        }
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Moves the finished copy into place. Without `replacing`, a hard link publishes it only if the
    /// name is still free (a file created meanwhile is never overwritten).
    private static func publish(_ temp: String, as path: String, replacing: Bool) throws(VaultError) {
        if replacing {
            var info = stat()
            if lstat(path, &info) == 0, info.st_mode & S_IFMT != S_IFREG, info.st_mode & S_IFMT != S_IFLNK {
                throw VaultError(.invalidInput, "\(path) is not a regular file; a backup never replaces it.")
            }
            guard rename(temp, path) == 0 else { throw VaultError.fromErrno(errno, "write \(path)") }
            return
        }
        guard link(temp, path) == 0 else {
            if errno == EEXIST { throw VaultError(.alreadyExists, "\(path) already exists; use --force to replace it.") }
            throw VaultError.fromErrno(errno, "write \(path)")
        }
        unlink(temp)
    }

    /// `error` about the temporary file, told about `path` instead.
    private static func naming(_ path: String, _ error: VaultError) -> VaultError {
        if error.code == .diskFull { return .diskFull("cannot write \(path)") }
        let reason = error.message.range(of: ": ").map { String(error.message[$0.upperBound...]) } ?? error.message
        return VaultError(error.code, "Cannot write \(path): \(reason)")
    }

    /// Replaces this vault's contents with a backup. The backup is opened with `credential` (by
    /// default this vault's current key, which works unless the vault was rekeyed since), its slot
    /// table, manifest and every row verified, and only then copied in — atomically, in one SQLite
    /// transaction under the lock — so a bad backup leaves the current vault untouched.
    public func restore(from backupPath: String, using credential: VaultCredential? = nil) throws(VaultError) {
        let current = try unlocked()
        let staged = try Self.stageRestore(
            from: backupPath, into: files.directory, using: credential ?? .masterKey(current.keys.master),
            configuration: configuration)
        defer { staged.discard() }
        let restored = try staged.copy(into: database)
        state.withLock { $0 = restored }
    }

    /// Restores a backup into `directory`, creating the vault there if there is none, and returns
    /// it open. See `restore(from:using:)`.
    public static func restore(
        from backupPath: String, into directory: String, using credential: VaultCredential,
        sealers: PasscodeSealers = .vaultOnly, configuration: VaultConfiguration = .init()
    ) throws(VaultError) -> Vault {
        let staged = try stageRestore(
            from: backupPath, into: directory, using: credential, sealers: sealers, configuration: configuration)
        defer { staged.discard() }
        return try staged.commit()
    }

    /// Copies a backup into `directory` as a private staging file, opens it with `credential` and
    /// verifies it whole (slot table, manifest, every row). Nothing of the live vault changes until
    /// `commit()`; meanwhile the staged copy can be read (`staged.backup`) to say what a restore
    /// would bring back. A passcode opens the backup through the sealer `sealers` has for the
    /// backup's mode (which may not be the live vault's).
    public static func stageRestore(
        from backupPath: String, into directory: String, using credential: VaultCredential,
        sealers: PasscodeSealers = .vaultOnly, configuration: VaultConfiguration = .init(),
        progress: ((_ done: Int, _ total: Int) -> Void)? = nil
    ) throws(VaultError) -> StagedRestore {
        let files = VaultFiles(directory: directory)
        try guarded { _ = try PrivateDirectory(creating: files.directory) }
        try files.checkPermissions()
        let bytes = try guarded { try AtomicFile.read(backupPath, followingSymlinks: true) }
        let staged = VaultFiles.temporaryName(near: files.database, "restore")
        do {
            try guarded { try AtomicFile.write(bytes, to: staged) }
            return try guarded {
                let queue = try openDatabase(staged)
                do {
                    let (meta, slots) = try queue.read { db in
                        guard try VaultSchema.inspect(db, path: backupPath).isVault else {
                            throw VaultError(.notAVault, "\(backupPath) is not a fingerlock backup.")
                        }
                        return (try MetaRow.read(db), try KeySlot.readAll(db))
                    }
                    let unlocked = try unlock(meta: meta, slots: slots, credential: credential, sealers: sealers)
                    let backup = Vault(
                        files: VaultFiles(directory: directory), configuration: configuration, database: queue,
                        unlocked: unlocked)
                    try backup.verifyIntegrity(progress: progress)
                    return StagedRestore(
                        backup: backup, files: files, stagedPath: staged, formatVersion: meta.formatVersion,
                        configuration: configuration)
                } catch {
                    try? queue.close()
                    throw error
                }
            }
        } catch {
            VaultFiles.removeDatabaseFiles(staged)
            throw VaultError.from(error)
        }
    }

    /// Whether `credential` opens this vault's slots (for saying which passcode opens a vault about
    /// to be restored). Costs one key derivation for a passcode. Only the vault's own sealer is
    /// tried: a system-mode passcode slot is never (its sealer would count an attempt), so
    /// it answers false.
    public func opens(with credential: VaultCredential) -> Bool {
        guard let (meta, slots) = try? read({ db, _, _ in (try MetaRow.read(db), try KeySlot.readAll(db)) }) else {
            return false
        }
        return (try? Self.unlock(meta: meta, slots: slots, credential: credential, sealers: .vaultOnly)) != nil
    }

    /// Whether this vault and `other` have the same recovery-key slot, so the same recovery key
    /// opens both.
    public func hasSameRecoveryKey(as other: Vault) -> Bool { hasSameSlot(KeySlot.recovery, as: other) }

    /// Whether this vault and `other` have the same passcode slot of `mode`, so the same passcode
    /// opens both through the same sealer. Different slots may still share the passcode (a rekey or
    /// a passcode change re-seals it); only the sealer could tell, and asking one that counts would
    /// count a try.
    public func hasSamePasscodeSlot(_ mode: VaultMode, as other: Vault) -> Bool {
        hasSameSlot(KeySlot.passcodeName(mode), as: other)
    }

    private func hasSameSlot(_ name: String, as other: Vault) -> Bool {
        func slot(_ vault: Vault) -> KeySlot? {
            try? vault.read { db, _, _ in try KeySlot.readAll(db).first { $0.name == name } }
        }
        guard let mine = slot(self), let theirs = slot(other) else { return false }
        return mine == theirs
    }
}

/// A verified backup staged beside the live vault, not yet in place: read `backup` to see what it
/// holds, then `commit()` or `discard()`.
public final class StagedRestore: Sendable {
    /// The staged copy, open for reading.
    public let backup: Vault
    let files: VaultFiles
    let stagedPath: String
    let formatVersion: Int64
    let configuration: VaultConfiguration

    init(backup: Vault, files: VaultFiles, stagedPath: String, formatVersion: Int64, configuration: VaultConfiguration) {
        self.backup = backup
        self.files = files
        self.stagedPath = stagedPath
        self.formatVersion = formatVersion
        self.configuration = configuration
    }

    /// Puts the backup in place of the live vault (creating it in an empty directory) in one SQLite
    /// transaction under the vault lock, and returns the live vault opened with the backup's key.
    public func commit() throws(VaultError) -> Vault {
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
        // A failed restore into an empty directory leaves nothing behind: no half-made vault that
        // would then refuse both `restore` and `passcode set`.
        var succeeded = false
        defer { if created && !succeeded { VaultFiles.removeDatabaseFiles(files.database) } }
        return try guarded {
            let live = try Vault.openDatabase(files.database)
            do {
                let state = try live.read { db in try VaultSchema.inspect(db, path: files.database) }
                if state == .empty {
                    try live.writeWithoutTransaction { db in _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL") }
                }
                let unlocked = try copy(into: live)
                succeeded = true
                return Vault(files: files, configuration: configuration, database: live, unlocked: unlocked)
            } catch {
                try? live.close()
                throw error
            }
        }
    }

    /// Copies the staged backup over `live` under the lock; returns the backup's keys.
    func copy(into live: DatabaseQueue) throws(VaultError) -> Vault.Unlocked {
        let unlocked = try backup.unlocked()
        return try guarded {
            let lock = try files.acquireLock(timeout: configuration.lockTimeout)
            defer { withExtendedLifetime(lock) {} }
            try live.read { db in
                if try VaultSchema.inspect(db, path: files.database).isVault, let current = try? MetaRow.read(db),
                    current.formatVersion != formatVersion
                {
                    throw VaultError(.unsupportedFormat, "The backup's format does not match this vault's.")
                }
            }
            // One step, one transaction on the live database: all of the backup or none of it.
            try backup.database.backup(to: live)
            // A backup made before the last migrations brings their absence along: the live vault
            // gets them back at once (the copy was checked exactly as its migrations made it).
            try VaultSchema.migrator.migrate(live)
            return unlocked
        }
    }

    /// Closes and removes the staged copy.
    public func discard() {
        backup.close()
        VaultFiles.removeDatabaseFiles(stagedPath)
    }
}
