import Crypto
import FingerlockTestSupport
import Foundation
import GRDB
import SafeFiles
import Synchronization
import Testing
import Vault

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Vault basics", .timed)
struct VaultBasicsTests {
    @Test("notes round-trip through close and reopen with the passcode")
    func roundTrip() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            var added: [Note] = []
            for sample in sampleNotes(5) {
                added.append(try vault.add(title: sample.title, body: sample.body, tags: sample.tags))
            }
            #expect(try vault.noteCount() == 5)
            vault.close()
            expectVaultError(.closed) { try vault.list() }

            let reopened = try Vault.open(in: dir + "/vault", using: .passcode(passcode), configuration: configuration())
            #expect(try reopened.kind == .test)
            for note in added { #expect(try reopened.note(id: note.id) == note) }
            let listed = try reopened.list()
            #expect(listed.map(\.id) == added.reversed().map(\.id))
            #expect(Set(listed) == Set(added.map(\.summary)))
            #expect(try reopened.list(tag: "TAG1").map(\.id) == [added[4].id, added[1].id])
            #expect(try reopened.allNotes() == added)
        }
    }

    @Test("update keeps id and creation date; delete removes; search ignores case")
    func updateDeleteSearch() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            let first = try vault.add(title: "Groceries", body: "Milk and EGGS", tags: ["home"])
            let second = try vault.add(title: "Work", body: "Quarterly report", tags: ["Office"])
            let third = try vault.add(title: "Ünïcode", body: "STRASSE und Straße", tags: [])

            #expect(try vault.search("eggs").map(\.id) == [first.id])
            #expect(try vault.search("GROC").map(\.id) == [first.id])
            #expect(try vault.search("office").map(\.id) == [second.id])
            #expect(try vault.search("straße").map(\.id) == [third.id])
            #expect(try vault.search("ÜNÏ").map(\.id) == [third.id])
            #expect(try vault.search("nothing like this").isEmpty)
            #expect(try vault.search("").count == 3)

            var edited = first
            edited.body = "Milk, eggs and bread"
            edited.title = "Shopping"
            let updated = try vault.update(edited)
            #expect(updated.created == first.created)
            #expect(updated.modified > first.modified)
            #expect(try vault.note(id: first.id) == updated)
            #expect(try vault.list().first?.id == first.id)

            try vault.deleteNote(id: second.id)
            expectVaultError(.notFound) { try vault.note(id: second.id) }
            expectVaultError(.notFound) { try vault.deleteNote(id: second.id) }
            expectVaultError(.notFound) { try vault.update(second) }
            #expect(try vault.noteCount() == 2)
            #expect(Set(try vault.list().map(\.id)) == [first.id, third.id])
        }
    }

    @Test("update in place: applied to the note as stored, unchanged is no write, a refusal writes nothing")
    func updateInPlace() throws {
        struct Refused: Error {}
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            let note = try vault.add(title: "Groceries", body: "Milk", tags: ["home"])
            // Another process's change since this one read the note is built upon.
            var elsewhere = note
            elsewhere.body = "Milk and eggs"
            try vault.update(elsewhere)
            let saved = try #require(try vault.update(id: note.id) { $0.tags.append("shop") })
            #expect(saved.body == "Milk and eggs" && saved.tags == ["home", "shop"] && saved.created == note.created)
            #expect(try vault.note(id: note.id) == saved)

            #expect(try vault.update(id: note.id) { $0.title = "Groceries" } == nil)
            #expect(try vault.note(id: note.id).modified == saved.modified)
            #expect(throws: Refused.self) {
                try vault.update(id: note.id) { (n: inout Note) throws(Refused) in
                    n.title = "x"
                    throw Refused()
                }
            }
            #expect(try vault.note(id: note.id) == saved)
            #expect(throws: VaultError.self) { try vault.update(id: UUID()) { $0.title = "x" } }

            // Many writers at once, each adding its own tag: none is lost.
            DispatchQueue.concurrentPerform(iterations: 8) { index in
                #expect(throws: Never.self) { try vault.update(id: note.id) { $0.tags.append("t\(index)") } }
            }
            #expect(Set(try vault.note(id: note.id).tags) == Set(["home", "shop"] + (0..<8).map { "t\($0)" }))
        }
    }

    @Test("bulk add is all or nothing")
    func bulkAdd() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            let stamp = Date(timeIntervalSinceReferenceDate: 1000)
            let notes = (0..<50).map { Note(title: "n\($0)", body: "b\($0)", created: stamp, modified: stamp) }
            try vault.add(notes)
            #expect(try vault.noteCount() == 50)
            let clash = [Note(title: "new", body: "x", created: stamp, modified: stamp), notes[7]]
            expectVaultError(.alreadyExists) { try vault.add(clash) }
            #expect(try vault.noteCount() == 50)
            #expect(try vault.list().count == 50)
        }
    }

    @Test("search spans several batches and finds exactly the matching notes")
    func searchManyNotes() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            let stamp = Date(timeIntervalSinceReferenceDate: 1000)
            let notes = (0..<9000).map { index in
                Note(
                    title: "note \(index)", body: index % 1000 == 7 ? "the NEEDLE is here" : "hay \(index)",
                    tags: index == 8500 ? ["Needle-Tag"] : [], created: stamp, modified: stamp)
            }
            try vault.add(notes)
            let found = try vault.search("needle")
            let expected = notes.filter { $0.body.contains("NEEDLE") || !$0.tags.isEmpty }.map(\.id)
            #expect(Set(found.map(\.id)) == Set(expected))
            #expect(found.count == 10)
            #expect(try vault.list().count == 9000)
        }
    }

    @Test("abbreviated ids resolve to one note, or say not found / ambiguous")
    func prefixLookup() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            let stamp = Date(timeIntervalSinceReferenceDate: 1000)
            let a = UUID(uuidString: "abcd0000-0000-0000-0000-000000000001")!
            let b = UUID(uuidString: "abcd0000-0000-0000-0000-000000000002")!
            let c = UUID(uuidString: "12345678-0000-0000-0000-000000000003")!
            try vault.add([a, b, c].map { Note(id: $0, title: "t", body: "b", created: stamp, modified: stamp) })
            #expect(try vault.resolveNoteID("1234") == c)
            #expect(try vault.resolveNoteID("ABCD0000-0000-0000-0000-000000000002") == b)
            #expect(try vault.resolveNoteID("abcd0000-0000-0000-0000-000000000001") == a)
            #expect(try Set(vault.noteIDs(matchingPrefix: "AbCd")) == [a, b])
            expectVaultError(.ambiguous) { try vault.resolveNoteID("abcd") }
            expectVaultError(.notFound) { try vault.resolveNoteID("ffff") }
            expectVaultError(.invalidInput) { try vault.resolveNoteID("xyz!") }
        }
    }

    @Test("wrong passcode is refused")
    func wrongPasscode() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            vault.close()
            expectVaultError(.wrongPasscode) { try Vault.open(in: dir + "/vault", using: .passcode("incorrect horse")) }
            expectVaultError(.invalidInput) { try Vault.open(in: dir + "/vault", using: .passcode("")) }
        }
    }

    @Test("a passcode typed in another Unicode normalisation still opens the vault")
    func passcodeNormalisation() throws {
        try withScratch { dir in
            let (vault, _) = try Vault.create(in: dir + "/vault", passcode: "caf\u{E9}", kind: .test, cost: testCost)
            vault.close()
            _ = try Vault.open(in: dir + "/vault", using: .passcode("cafe\u{301}"))
        }
    }

    @Test("the recovery key opens the vault in any case and grouping, and resets the passcode")
    func recoveryKey() throws {
        try withScratch { dir in
            let (vault, recovery) = try makeVault(dir)
            let note = try vault.add(title: "keep me", body: "safe")
            vault.close()

            let shown = recovery.displayString
            let groups = shown.split(separator: "-")
            #expect(groups.count == 13 && groups.allSatisfy { $0.count == 4 })
            #expect(!"\(recovery)".contains(shown))
            let typed = shown.lowercased().replacingOccurrences(of: "-", with: " ").replacingOccurrences(of: "0", with: "o")
            let recovered = try Vault.open(in: dir + "/vault", using: .recoveryKey(typed))
            try recovered.changePasscode(to: "new passcode", cost: testCost)
            recovered.close()

            expectVaultError(.wrongPasscode) { try Vault.open(in: dir + "/vault", using: .passcode(passcode)) }
            let reopened = try Vault.open(in: dir + "/vault", using: .passcode("new passcode"))
            #expect(try reopened.note(id: note.id) == note)

            expectVaultError(.wrongRecoveryKey) {
                try Vault.open(in: dir + "/vault", using: .recoveryKey(otherRecoveryKey(dir)))
            }
            expectVaultError(.invalidInput) { try Vault.open(in: dir + "/vault", using: .recoveryKey("ABCD-EFGH")) }
            #expect(RecoveryKey(parsing: shown + "A") == nil)
        }
    }

    private func otherRecoveryKey(_ dir: String) throws -> String {
        let (other, key) = try Vault.create(in: dir + "/other", passcode: "x", kind: .test, cost: testCost)
        other.close()
        return key.displayString
    }

    @Test("changing the passcode keeps every note readable")
    func passcodeChange() throws {
        try withScratch { dir in
            let (vault, recovery) = try makeVault(dir)
            for sample in sampleNotes(10) { try vault.add(title: sample.title, body: sample.body, tags: sample.tags) }
            let before = try vault.allNotes()
            try vault.changePasscode(to: "second", cost: testCost)
            vault.close()
            let reopened = try Vault.open(in: dir + "/vault", using: .passcode("second"))
            #expect(try reopened.allNotes() == before)
            reopened.close()
            // The recovery slot is untouched by a passcode change.
            _ = try Vault.open(in: dir + "/vault", using: .recoveryKey(recovery.displayString))
        }
    }

    @Test("a passcode change committed while a rekey derives its keys stops the rekey, and stays")
    func passcodeChangeDuringRekey() throws {
        try withScratch { dir in
            // A slow passcode slot, so the rekey's two key derivations take a while.
            let (vault, _) = try Vault.create(
                in: dir + "/vault", passcode: passcode, kind: .test, cost: .insecureForTestsOnly(log2N: 17),
                configuration: configuration())
            let note = try vault.add(title: "kept", body: "b", tags: [])
            let other = try Vault.open(in: dir + "/vault", using: .passcode(passcode), configuration: configuration())
            // The change on a thread of its own (a pool may run both sides one after the other),
            // shortly after the rekey starts its two slow key derivations.
            let changed = Mutex<Result<Void, VaultError>?>(nil)
            let done = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                usleep(20_000)
                let result = Result { () throws(VaultError) in try other.changePasscode(to: "changed meanwhile", cost: testCost) }
                changed.withLock { $0 = result }
                done.signal()
            }
            let rekeyed = Result { () throws(VaultError) in try vault.rekey(passcode: passcode, cost: testCost) }
            done.wait()
            other.close()
            vault.close()
            switch (rekeyed, try #require(changed.withLock { $0 })) {
            case (.failure(let error), .success):
                // The usual order: the change committed first, and the rekey stopped.
                #expect(error.code == .busy)
                expectVaultError(.wrongPasscode) { try Vault.open(in: dir + "/vault", using: .passcode(passcode)) }
                let reopened = try Vault.open(in: dir + "/vault", using: .passcode("changed meanwhile"))
                #expect(try reopened.note(id: note.id).title == "kept")
                reopened.close()
            case (.success, .failure(let error)):
                // A loaded machine ran the rekey through first: the change was refused, not lost.
                #expect(error.code == .wrongKey)
                let reopened = try Vault.open(in: dir + "/vault", using: .passcode(passcode))
                #expect(try reopened.note(id: note.id).title == "kept")
                reopened.close()
            default:
                Issue.record("both went ahead, or neither: \(rekeyed), \(String(describing: changed.withLock { $0 }))")
            }
        }
    }

    @Test("rekey keeps every note and makes old keys and old slot copies useless")
    func rekey() throws {
        try withScratch { dir in
            let (vault, oldRecovery) = try makeVault(dir)
            for sample in sampleNotes(30) { try vault.add(title: sample.title, body: sample.body, tags: sample.tags) }
            try vault.putTemplate(Data([1, 2, 3]), reader: "virtual_image:0", finger: "right-index-finger")
            try vault.setSetting("8h", for: "cache-expiry")
            let before = try vault.allNotes()
            let oldKey = try vault.exportMasterKey()
            let storeID = try vault.storeID
            let oldSlots = try withRawDatabase(dir) { db in try Row.fetchAll(db, sql: "SELECT * FROM slots") }

            expectVaultError(.wrongPasscode) { try vault.rekey(passcode: "wrong", cost: testCost) }
            let newRecovery = try vault.rekey(passcode: passcode, cost: testCost)
            #expect(newRecovery.displayString != oldRecovery.displayString)
            #expect(try vault.allNotes() == before)
            #expect(try hex(vault.exportMasterKey()) != hex(oldKey))
            #expect(try vault.storeID == storeID)
            // The WAL no longer holds frames with the old slots.
            let wal = try FileManager.default.attributesOfItem(atPath: dir + "/vault/vault.sqlite-wal")
            #expect((wal[.size] as? NSNumber)?.intValue == 0)
            vault.close()

            let reopened = try Vault.open(in: dir + "/vault", using: .passcode(passcode))
            #expect(try reopened.allNotes() == before)
            #expect(try reopened.template(reader: "virtual_image:0", finger: "right-index-finger") == Data([1, 2, 3]))
            #expect(try reopened.stringSetting("cache-expiry") == "8h")
            try reopened.verifyIntegrity()
            reopened.close()
            _ = try Vault.open(in: dir + "/vault", using: .recoveryKey(newRecovery.displayString))

            expectVaultError(.wrongKey) { try Vault.open(in: dir + "/vault", using: .masterKey(oldKey)) }
            expectVaultError(.wrongRecoveryKey) {
                try Vault.open(in: dir + "/vault", using: .recoveryKey(oldRecovery.displayString))
            }
            // Put the old slots back: they unwrap the old key, which the vault no longer accepts.
            try withRawDatabase(dir) { db in
                try db.execute(sql: "DELETE FROM slots")
                for row in oldSlots {
                    try db.execute(
                        sql: "INSERT INTO slots (name, parameters, wrapped) VALUES (?, ?, ?)",
                        arguments: [row["name"], row["parameters"], row["wrapped"]])
                }
            }
            expectVaultError(.tampered) { try Vault.open(in: dir + "/vault", using: .passcode(passcode)) }
        }
    }

    @Test("templates and settings are stored sealed and verified as sets")
    func templatesAndSettings() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            let reader = "virtual_image:0"
            try vault.putTemplate(Data("left".utf8), reader: reader, finger: "left-thumb")
            try vault.putTemplate(Data("right".utf8), reader: reader, finger: "right-thumb")
            try vault.putTemplate(Data("other".utf8), reader: "synaptics:1", finger: "left-thumb")
            try vault.putTemplate(Data("right v2".utf8), reader: reader, finger: "right-thumb")
            #expect(try vault.template(reader: reader, finger: "right-thumb") == Data("right v2".utf8))
            #expect(try vault.template(reader: reader, finger: "left-index-finger") == nil)
            #expect(try vault.templates(reader: reader).map(\.finger) == ["left-thumb", "right-thumb"])
            #expect(try vault.templates().count == 3)
            #expect(try vault.deleteTemplate(reader: reader, finger: "left-thumb"))
            #expect(try !vault.deleteTemplate(reader: reader, finger: "left-thumb"))
            #expect(try vault.deleteTemplates(reader: nil) == 2)
            #expect(try vault.templates().isEmpty)

            try vault.setSetting("8h", for: "cache-expiry")
            try vault.setSetting("3", for: "max-tries")
            try vault.setSetting("12h", for: "cache-expiry")
            #expect(try vault.stringSetting("cache-expiry") == "12h")
            #expect(try vault.settings() == ["cache-expiry": Data("12h".utf8), "max-tries": Data("3".utf8)])
            #expect(try vault.removeSetting("max-tries"))
            #expect(try !vault.removeSetting("max-tries"))
            #expect(try vault.setting("max-tries") == nil)
            try vault.verifyIntegrity()
        }
    }

    @Test("a planted master key is refused before it is used, and changes nothing")
    func plantedKey() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            try vault.add(title: "t", body: "b")
            vault.close()
            let before = try Data(contentsOf: URL(fileURLWithPath: dir + "/vault/vault.sqlite"))
            expectVaultError(.wrongKey) { try Vault.open(in: dir + "/vault", using: .masterKey(SymmetricKey(size: .bits256))) }
            expectVaultError(.wrongKey) { try Vault.open(in: dir + "/vault", using: .masterKey(SymmetricKey(size: .bits128))) }
            let after = try Data(contentsOf: URL(fileURLWithPath: dir + "/vault/vault.sqlite"))
            #expect(before == after)
        }
    }

    @Test("a vault whose key changed under it refuses to write with the old key")
    func staleKeyRefusesWrites() throws {
        try withScratch { dir in
            let (first, _) = try makeVault(dir)
            let second = try Vault.open(in: dir + "/vault", using: .passcode(passcode))
            _ = try first.rekey(passcode: passcode, cost: testCost)
            expectVaultError(.wrongKey) { try second.add(title: "stale", body: "key") }
            expectVaultError(.wrongKey) { try second.list() }
            #expect(try first.noteCount() == 0)
        }
    }

    @Test("the normal API calibrates scrypt at or above the floor (N = 2^17, r = 8)", .timeLimit(.minutes(1)))
    func calibratedCost() throws {
        try withScratch { dir in
            let clock = ContinuousClock()
            let start = clock.now
            let (vault, _) = try Vault.create(in: dir + "/vault", passcode: passcode, kind: .hardware)
            let elapsed = clock.now - start
            vault.close()
            let parameters = try withRawDatabase(dir) { db in
                try Data.fetchOne(db, sql: "SELECT parameters FROM slots WHERE name = 'passcode'")!
            }
            // Layout: version, log2N, r (u32 LE), p (u32 LE), salt.
            #expect(parameters[1] >= 17 && parameters[1] <= 18, "calibration stays within 256 MiB")
            #expect(parameters[2] == 8)
            // More cost than 2^18 comes from sequential lanes: p from 1 to 4.
            #expect((1...4).contains(parameters[6]))
            // Calibration aims at 0.5–1 s per derivation (unless the floor alone is slower).
            #expect(elapsed >= .milliseconds(400))
            let reopened = try Vault.open(in: dir + "/vault", using: .passcode(passcode))
            #expect(try reopened.kind == .hardware)
        }
    }

    @Test("too-open permissions are refused with the chmod that fixes them")
    func permissions() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            vault.close()
            let path = dir + "/vault"
            #expect(chmod(path, 0o755) == 0)
            let error = expectVaultError(.permissions) { try Vault.open(in: path, using: .passcode(passcode)) }
            #expect(error?.message.contains("chmod 700") == true)
            #expect(chmod(path, 0o700) == 0)
            #expect(chmod(path + "/vault.sqlite", 0o644) == 0)
            let fileError = expectVaultError(.permissions) { try Vault.open(in: path, using: .passcode(passcode)) }
            #expect(fileError?.message.contains("chmod 600") == true)
            #expect(chmod(path + "/vault.sqlite", 0o600) == 0)
            _ = try Vault.open(in: path, using: .passcode(passcode))
            // Everything the vault created is private.
            for name in try FileManager.default.contentsOfDirectory(atPath: path) {
                var info = stat()
                #expect(stat(path + "/" + name, &info) == 0)
                #expect(info.st_mode & 0o077 == 0, "\(name)")
            }
        }
    }

    @Test("missing, foreign and duplicate vaults are named as such")
    func notAVault() throws {
        try withScratch { dir in
            expectVaultError(.notFound) { try Vault.open(in: dir + "/none", using: .passcode(passcode)) }
            #expect(mkdir(dir + "/empty", 0o700) == 0)
            expectVaultError(.notFound) { try Vault.open(in: dir + "/empty", using: .passcode(passcode)) }
            #expect(!Vault.exists(in: dir + "/empty"))

            #expect(mkdir(dir + "/junk", 0o700) == 0)
            try AtomicFile.write(Array(repeating: 0x41, count: 8192), to: dir + "/junk/vault.sqlite")
            expectVaultError(.notAVault) { try Vault.open(in: dir + "/junk", using: .passcode(passcode)) }
            expectVaultError(.notAVault) { try Vault.storeID(in: dir + "/junk") }

            #expect(mkdir(dir + "/foreign", 0o700) == 0)
            try AtomicFile.write([], to: dir + "/foreign/vault.sqlite")
            let queue = try DatabaseQueue(path: dir + "/foreign/vault.sqlite")
            try queue.write { db in try db.execute(sql: "CREATE TABLE other (x)") }
            try queue.close()
            expectVaultError(.notAVault) { try Vault.open(in: dir + "/foreign", using: .passcode(passcode)) }
            expectVaultError(.notAVault) {
                try Vault.create(in: dir + "/foreign", passcode: passcode, kind: .test, cost: testCost)
            }

            let (vault, _) = try makeVault(dir)
            #expect(try Vault.storeID(in: dir + "/vault") == vault.storeID)
            expectVaultError(.alreadyExists) {
                try Vault.create(in: dir + "/vault", passcode: passcode, kind: .test, cost: testCost)
            }
        }
    }

    @Test("a newer format version is refused")
    func formatVersion() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            vault.close()
            try withRawDatabase(dir) { db in try db.execute(sql: "UPDATE meta SET format_version = 2") }
            expectVaultError(.unsupportedFormat) { try Vault.open(in: dir + "/vault", using: .passcode(passcode)) }
            try withRawDatabase(dir) { db in
                try db.execute(sql: "UPDATE meta SET format_version = 1")
                try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99-from-the-future')")
            }
            expectVaultError(.unsupportedFormat) { try Vault.open(in: dir + "/vault", using: .passcode(passcode)) }
        }
    }

    @Test("a second writer waits for the lock, then reports busy")
    func busy() throws {
        try withScratch { dir in
            let (_, _) = try makeVault(dir)
            var quick = configuration()
            quick.lockTimeout = .milliseconds(200)
            let vault = try Vault.open(in: dir + "/vault", using: .passcode(passcode), configuration: quick)
            let held = try FileLock(path: dir + "/vault/vault.lock")
            let clock = ContinuousClock()
            let start = clock.now
            expectVaultError(.busy) { try vault.add(title: "t", body: "b") }
            #expect(clock.now - start >= .milliseconds(200))
            #expect(try vault.list().isEmpty)  // readers do not wait for writers
            withExtendedLifetime(held) {}
        }
    }

    @Test("durability and privacy settings are in force")
    func connectionSettings() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            let settings = try vault.connectionSettings()
            #expect(settings["journal_mode"] == "wal")
            #expect(settings["synchronous"] == "2")  // FULL
            #expect(settings["secure_delete"] == "1")
            #expect(settings["temp_store"] == "2")  // MEMORY
        }
    }

    @Test("backup and restore: a verified copy comes back, a damaged one changes nothing")
    func backupRestore() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            for sample in sampleNotes(8) { try vault.add(title: sample.title, body: sample.body, tags: sample.tags) }
            try vault.putTemplate(Data([9]), reader: "r:1", finger: "left-thumb")
            let saved = try vault.allNotes()
            let backup = dir + "/backup.fingerlock"
            try vault.backup(to: backup)
            var info = stat()
            #expect(stat(backup, &info) == 0 && info.st_mode & 0o777 == 0o600)
            #expect(!FileManager.default.fileExists(atPath: backup + "-wal"))

            try vault.deleteNote(id: saved[0].id)
            let later = try vault.add(title: "after the backup", body: "x")
            try vault.restore(from: backup)
            #expect(try vault.allNotes() == saved)
            #expect(try vault.templates().count == 1)

            // A damaged backup is refused and the live vault stays as it is.
            try vault.add([later])
            var bytes = try AtomicFile.read(backup)
            let target = try #require(findNoteBlobOffset(bytes))
            bytes[target] ^= 0xFF
            try AtomicFile.write(bytes, to: dir + "/damaged.fingerlock")
            #expect(throws: VaultError.self) { try vault.restore(from: dir + "/damaged.fingerlock") }
            #expect(try vault.noteCount() == saved.count + 1)

            // Into an empty directory (a new machine), with the passcode of the backup.
            let moved = try Vault.restore(
                from: backup, into: dir + "/elsewhere", using: .passcode(passcode), configuration: configuration())
            #expect(try moved.allNotes() == saved)
            #expect(try moved.storeID == vault.storeID)
            moved.close()
            _ = try Vault.open(in: dir + "/elsewhere", using: .passcode(passcode))
            expectVaultError(.wrongPasscode) {
                try Vault.restore(from: backup, into: dir + "/third", using: .passcode("nope"))
            }
        }
    }

    @Test("export gives every note as JSON and Markdown")
    func export() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            for sample in sampleNotes(4) { try vault.add(title: sample.title, body: sample.body, tags: sample.tags) }
            let notes = try vault.allNotes()
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            let decoded = try decoder.decode([Note].self, from: try vault.exportJSON())
            #expect(decoded.map(\.id) == notes.map(\.id))
            #expect(decoded.map(\.body) == notes.map(\.body))
            let markdown = try vault.exportMarkdown()
            for note in notes {
                #expect(markdown.contains("# \(note.title)\n"))
                #expect(markdown.contains(note.body))
                #expect(markdown.contains(note.id.uuidString.lowercased()))
            }
        }
    }

    @Test("a damaged database and an unwritable destination are named as such")
    func corruptAndIO() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            try vault.add(title: "t", body: "b")
            let missing = expectVaultError(.invalidInput) { try vault.backup(to: dir + "/no/such/dir/backup") }
            #expect(missing?.message.contains("does not exist") == true)
            let key = try vault.exportMasterKey()
            vault.close()
            // A table gone is caught when the schema is checked on open…
            try withRawDatabase(dir) { db in try db.execute(sql: "DROP TABLE note_bodies") }
            let error = expectVaultError(.tampered) { try Vault.open(in: dir + "/vault", using: .masterKey(key)) }
            #expect(error?.message.contains("note_bodies") == true)
            // …and any SQL failure past that check is named as a damaged database.
            let corrupt = VaultError.from(DatabaseError(resultCode: .SQLITE_CORRUPT))
            #expect(corrupt.code == .corrupt && corrupt.part == "database")
        }
    }

    @Test("SQLite's disk-full code maps to diskFull, with nothing changed")
    func diskFullMessage() {
        let error = VaultError.from(DatabaseError(resultCode: .SQLITE_FULL))
        #expect(error.code == .diskFull)
        #expect(error.message.contains("Nothing was changed"))
    }
}

/// The middle of some ciphertext past the first page: any high-entropy run of 32 bytes.
func findNoteBlobOffset(_ bytes: [UInt8]) -> Int? {
    let window = 32
    var index = 4096
    while index + window < bytes.count {
        let slice = bytes[index..<index + window]
        if Set(slice).count > 24 { return index + window / 2 }
        index += window
    }
    return nil
}
