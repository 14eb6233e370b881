import Crypto
import FingerlockTestSupport
import Foundation
import GRDB
import Synchronization
import Testing
import Vault

#if canImport(Glibc)
    import Glibc
#endif

/// `LockedVault`: the database opened for its header and kept for the unlock that follows. The
/// unlock reads everything afresh; only the connection is reused.
@Suite("A vault opened before it is unlocked", .timed)
struct LockedVaultTests {
    /// How many of this process's descriptors are open on `path` (each connection holds one).
    func descriptors(on path: String) -> Int {
        let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return entries.filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)) == target }
            .count
    }

    @Test("the header names the store and mode; the unlock uses the same connection and owns it")
    func headerThenUnlockOnOneConnection() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            let note = try vault.add(title: "t", body: "b", tags: [])
            let storeID = try vault.storeID
            vault.close()
            let database = dir + "/vault/vault.sqlite"
            #expect(descriptors(on: database) == 0)

            let locked = try LockedVault.open(in: dir + "/vault", configuration: configuration())
            #expect(locked.header == VaultHeader(storeID: storeID, mode: .user))
            #expect(locked.isCurrent)
            #expect(descriptors(on: database) == 1)
            let opened = try locked.unlock(using: .passcode(passcode))
            #expect(descriptors(on: database) == 1)
            #expect(try opened.note(id: note.id) == note)
            // Handed over: it is the vault's now; closing the locked one must not close it.
            #expect(!locked.isCurrent)
            locked.close()
            #expect(try opened.note(id: note.id) == note)
            expectVaultError(.closed) { try locked.unlock(using: .passcode(passcode)) }
            opened.close()
            #expect(descriptors(on: database) == 0)
        }
    }

    @Test("a wrong passcode leaves it open for the next try; no key found leaves it open too")
    func failuresKeepItUsable() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            let key = try vault.exportMasterKey()
            vault.close()
            let locked = try LockedVault.open(in: dir + "/vault", configuration: configuration())
            expectVaultError(.wrongPasscode) { try locked.unlock(using: .passcode("not it")) }
            #expect(try locked.unlock(masterKeyFor: { _ in nil }) == nil)
            #expect(locked.isCurrent)
            let opened = try #require(try locked.unlock(masterKeyFor: { _ in key }))
            opened.close()
        }
    }

    @Test("what changed since the header was read is what the unlock sees")
    func theUnlockReadsAfresh() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            vault.close()
            let locked = try LockedVault.open(in: dir + "/vault", configuration: configuration())
            // Another process changes the passcode between the header and the unlock.
            let other = try Vault.open(in: dir + "/vault", using: .passcode(passcode), configuration: configuration())
            try other.changePasscode(to: "a new passcode", cost: testCost)
            other.close()
            expectVaultError(.wrongPasscode) { try locked.unlock(using: .passcode(passcode)) }
            try locked.unlock(using: .passcode("a new passcode")).close()
        }
    }

    @Test("a trigger added since the header was read is refused at the unlock; an untouched one reuses nothing stale")
    func theUnlockChecksTheSchemaAgainAfterAChange() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            vault.close()
            let untouched = try LockedVault.open(in: dir + "/vault", configuration: configuration())
            try untouched.unlock(using: .passcode(passcode)).close()
            let locked = try LockedVault.open(in: dir + "/vault", configuration: configuration())
            try withRawDatabase(dir) { db in
                try db.execute(sql: "CREATE TRIGGER wipe AFTER UPDATE ON meta BEGIN DELETE FROM notes; END")
            }
            let error = expectVaultError(.tampered) { try locked.unlock(using: .passcode(passcode)) }
            #expect(error?.message.contains("trigger \"wipe\"") == true, "\(String(describing: error))")
        }
    }

    @Test("a key slot that cannot be read fails the unlock, as opening does, not the header read")
    func anUnreadableSlotFailsTheUnlockNotTheHeader() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            vault.close()
            try withRawDatabase(dir) { db in try db.execute(sql: "UPDATE slots SET wrapped = 'not a blob'") }
            let locked = try LockedVault.open(in: dir + "/vault", configuration: configuration())
            #expect(locked.header.mode == .user)
            expectVaultError(.tampered) { try locked.unlock(using: .passcode(passcode)) }
            expectVaultError(.tampered) { try Vault.open(in: dir + "/vault", using: .passcode(passcode)) }
        }
    }

    @Test("a database file replaced since (as a restore does) is not current; its permissions are checked again")
    func replacedOrLoosenedFiles() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            vault.close()
            let database = dir + "/vault/vault.sqlite"
            let locked = try LockedVault.open(in: dir + "/vault", configuration: configuration())
            #expect(locked.isCurrent)
            let copy = dir + "/vault/copy.sqlite"
            try FileManager.default.copyItem(atPath: database, toPath: copy)
            #expect(chmod(copy, 0o600) == 0)
            #expect(rename(copy, database) == 0)
            #expect(!locked.isCurrent)
            locked.close()

            let again = try LockedVault.open(in: dir + "/vault", configuration: configuration())
            #expect(chmod(database, 0o644) == 0)
            expectVaultError(.permissions) { try again.unlock(using: .passcode(passcode)) }
            #expect(chmod(database, 0o600) == 0)
            try again.unlock(using: .passcode(passcode)).close()
        }
    }

    @Test("no vault, or a directory that is not private: the same errors as opening it")
    func missingOrOpenDirectory() throws {
        try withScratch { dir in
            expectVaultError(.notFound) { try LockedVault.open(in: dir + "/vault", configuration: configuration()) }
            let (vault, _) = try makeVault(dir)
            vault.close()
            #expect(chmod(dir + "/vault", 0o755) == 0)
            expectVaultError(.permissions) { try LockedVault.open(in: dir + "/vault", configuration: configuration()) }
        }
    }

    @Test("closed, it refuses to unlock; a close racing an unlock never closes the vault that unlock got")
    func closeAndUnlockRace() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            let note = try vault.add(title: "t", body: "b", tags: [])
            let key = try vault.exportMasterKey()
            vault.close()
            let closed = try LockedVault.open(in: dir + "/vault", configuration: configuration())
            closed.close()
            #expect(!closed.isCurrent)
            expectVaultError(.closed) { try closed.unlock(using: .passcode(passcode)) }

            for _ in 0..<100 {
                let locked = try LockedVault.open(in: dir + "/vault", configuration: configuration())
                let outcome = Mutex<Result<Vault?, any Error>?>(nil)
                DispatchQueue.concurrentPerform(iterations: 2) { side in
                    if side == 0 {
                        let result = Result { try locked.unlock(masterKeyFor: { _ in key }) }
                        outcome.withLock { $0 = result }
                    } else {
                        locked.close()
                    }
                }
                switch try #require(outcome.withLock { $0 }) {
                case .success(let opened):
                    // The unlock got the connection: the close left it alone.
                    let opened = try #require(opened)
                    #expect(try opened.note(id: note.id) == note)
                    opened.close()
                case .failure(let error):
                    // The close got it first: the unlock says so, not some error of a closed database.
                    #expect((error as? VaultError)?.code == .closed, "\(error)")
                }
            }
        }
    }

    @Test("another process's last connection closing (SQLite removes -wal and -shm) is no error here")
    func journalFilesComingAndGoing() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            let key = try vault.exportMasterKey()
            vault.close()
            let failures = Mutex<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 2) { side in
                for _ in 0..<150 {
                    do {
                        if side == 0 {
                            // Opens and closes: each close of the last connection removes the -wal and -shm.
                            try Vault.open(in: dir + "/vault", using: .masterKey(key), configuration: configuration()).close()
                        } else {
                            let locked = try LockedVault.open(in: dir + "/vault", configuration: configuration())
                            try #require(try locked.unlock(masterKeyFor: { _ in key })).close()
                        }
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                }
            }
            #expect(failures.withLock { $0 } == [])
        }
    }
}
