import Crypto
import FingerlockTestSupport
import Foundation
import GRDB
import Synchronization
import Testing

@testable import Vault

/// A sealer that mixes in a secret of its own per vault, as fingerlockd does, and counts the
/// attempts to open: enough to test the vault's side of a sealed passcode slot.
final class SecretSealer: PasscodeSlotSealer {
    private let state = Mutex<(secrets: [UUID: SymmetricKey], attempts: Int, confirmed: [Data])>(([:], 0, []))

    var mode: VaultMode { .system }
    var attempts: Int { state.withLock { $0.attempts } }
    /// Every slot confirmed, in order.
    var confirmedSlots: [Data] { state.withLock { $0.confirmed } }

    func register(_ vault: UUID) {
        state.withLock { if $0.secrets[vault] == nil { $0.secrets[vault] = SymmetricKey(size: .bits256) } }
    }

    private func kek(_ vault: UUID, _ stretched: SymmetricKey) throws(PasscodeSealerError) -> SymmetricKey {
        guard let secret = state.withLock({ $0.secrets[vault] }) else {
            throw PasscodeSealerError(.unavailable, "no secret for this vault")
        }
        var material = stretched.withUnsafeBytes { Array($0) }
        material += secret.withUnsafeBytes { Array($0) }
        return HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: material), info: Array(vault.uuidString.lowercased().utf8),
            outputByteCount: 32)
    }

    func seal(_ key: SymmetricKey, for slot: PasscodeSlotBinding, authorizedBy currentKey: SymmetricKey?)
        throws(PasscodeSealerError) -> Data
    {
        let kek = try kek(slot.vault, slot.stretched)
        return try! AES.GCM.seal(key.withUnsafeBytes { Data($0) }, using: kek, authenticating: slot.associatedData)
            .combined!
    }

    func open(_ slot: SealedPasscodeSlot) throws(PasscodeSealerError) -> SymmetricKey {
        let kek = try kek(slot.vault, slot.stretched)
        state.withLock { $0.attempts += 1 }
        guard let box = try? AES.GCM.SealedBox(combined: slot.sealed),
            let key = try? AES.GCM.open(box, using: kek, authenticating: slot.associatedData)
        else { throw PasscodeSealerError(.wrongPasscode, "wrong, counted") }
        return SymmetricKey(data: key)
    }

    func confirm(_ slot: SealedPasscodeSlot) {
        state.withLock { $0.confirmed.append(slot.sealed) }
    }
}

/// A sealer that opens slots but has stopped sealing them (it went away between the two calls).
struct SealFails: PasscodeSlotSealer {
    let inner: SecretSealer
    var mode: VaultMode { inner.mode }
    func seal(_ key: SymmetricKey, for slot: PasscodeSlotBinding, authorizedBy currentKey: SymmetricKey?)
        throws(PasscodeSealerError) -> Data
    { throw PasscodeSealerError(.unavailable, "the sealer went away") }
    func open(_ slot: SealedPasscodeSlot) throws(PasscodeSealerError) -> SymmetricKey { try inner.open(slot) }
}

@Suite("Vault with a passcode-slot sealer", .timed)
struct PasscodeSealerTests {
    func sealers(_ sealer: any PasscodeSlotSealer) -> PasscodeSealers { PasscodeSealers([VaultPasscodeSealer(), sealer]) }

    /// A vault with one note whose passcode slot `sealer` sealed; returns its recovery key.
    func makeSealedVault(_ dir: String, _ sealer: SecretSealer) throws -> RecoveryKey {
        let (vault, recoveryKey) = try Vault.create(
            in: dir + "/vault", passcode: passcode, kind: .test, cost: testCost, configuration: configuration())
        _ = try vault.add(title: "kept", body: "secret body")
        sealer.register(try vault.storeID)
        try vault.movePasscodeSlot(from: .user, to: sealer, passcode: passcode, cost: testCost)
        #expect(try vault.mode == .system)
        vault.close()
        return recoveryKey
    }

    @Test("the passcode opens a sealed vault only through its sealer, which sees every attempt")
    func roundTrip() throws {
        try withScratch { dir in
            let sealer = SecretSealer()
            _ = try makeSealedVault(dir, sealer)
            #expect(try LockedVault.open(in: dir + "/vault").header.mode == .system)
            let vault = try Vault.open(in: dir + "/vault", using: .passcode(passcode), sealers: sealers(sealer))
            #expect(try vault.list().map(\.title) == ["kept"])
            #expect(try vault.mode == .system)
            vault.close()
            let wrong = expectVaultError(.wrongPasscode) {
                try Vault.open(in: dir + "/vault", using: .passcode("wrong one"), sealers: sealers(sealer))
            }
            // The sealer's own sentence reaches the caller.
            #expect(wrong?.message == "wrong, counted")
            #expect(sealer.attempts == 2)
        }
    }

    @Test("without the sealer, or with another sealer's secret, the right passcode opens nothing")
    func passcodeNeedsTheSealer() throws {
        try withScratch { dir in
            _ = try makeSealedVault(dir, SecretSealer())
            expectVaultError(.sealerUnavailable) { try Vault.open(in: dir + "/vault", using: .passcode(passcode)) }
            let other = SecretSealer()
            expectVaultError(.sealerUnavailable) {
                try Vault.open(in: dir + "/vault", using: .passcode(passcode), sealers: sealers(other))
            }
            other.register(try Vault.storeID(in: dir + "/vault"))
            expectVaultError(.wrongPasscode) {
                try Vault.open(in: dir + "/vault", using: .passcode(passcode), sealers: sealers(other))
            }
        }
    }

    @Test("the recovery key opens a sealed vault without any sealer")
    func recoveryKeyAlone() throws {
        try withScratch { dir in
            let recoveryKey = try makeSealedVault(dir, SecretSealer())
            let vault = try Vault.open(in: dir + "/vault", using: .recoveryKey(recoveryKey.displayString))
            #expect(try vault.list().map(\.title) == ["kept"])
            vault.close()
        }
    }

    @Test("flipping the recorded mode either way is tampering with the slot table")
    func modeFlip() throws {
        try withScratch { dir in
            let sealer = SecretSealer()
            let recoveryKey = try makeSealedVault(dir, sealer)
            try withRawDatabase(dir) { db in try db.execute(sql: "UPDATE meta SET mode = 'user'") }
            #expect(
                expectVaultError(.tampered) {
                    try Vault.open(in: dir + "/vault", using: .recoveryKey(recoveryKey.displayString))
                }?.part == "slot table")
            expectVaultError(.tampered) {
                try Vault.open(in: dir + "/vault", using: .passcode(passcode), sealers: sealers(sealer))
            }
        }
        try withScratch { dir in
            let (vault, recoveryKey) = try makeVault(dir)
            vault.close()
            try withRawDatabase(dir) { db in try db.execute(sql: "UPDATE meta SET mode = 'system'") }
            #expect(
                expectVaultError(.tampered) {
                    try Vault.open(in: dir + "/vault", using: .recoveryKey(recoveryKey.displayString))
                }?.part == "slot table")
        }
    }

    @Test("a slot in the vault's own sealer again records user mode; notes intact, the other sealer not asked")
    func backToTheVaultsOwnSealer() throws {
        try withScratch { dir in
            let sealer = SecretSealer()
            _ = try makeSealedVault(dir, sealer)
            let vault = try Vault.open(in: dir + "/vault", using: .passcode(passcode), sealers: sealers(sealer))
            try vault.movePasscodeSlot(from: .system, to: VaultPasscodeSealer(), passcode: passcode, cost: testCost)
            vault.close()
            #expect(sealer.attempts == 1)
            #expect(sealer.confirmedSlots.isEmpty)
            #expect(try LockedVault.open(in: dir + "/vault").header.mode == .user)
            let reopened = try Vault.open(in: dir + "/vault", using: .passcode(passcode))
            #expect(try reopened.list().map(\.title) == ["kept"])
            reopened.close()
        }
    }

    @Test("a passcode change reseals through the sealer, which confirms the new slot once it is in the vault")
    func changeThroughTheSealer() throws {
        try withScratch { dir in
            let sealer = SecretSealer()
            let recoveryKey = try makeSealedVault(dir, sealer)
            // Moving into the sealer's mode confirmed nothing (it had no slot of this vault before).
            #expect(sealer.confirmedSlots.isEmpty)
            let vault = try Vault.open(
                in: dir + "/vault", using: .recoveryKey(recoveryKey.displayString), sealers: sealers(sealer))
            try vault.changePasscode(to: "a new passcode", sealer: sealer, cost: testCost)
            vault.close()
            let newSlot = try withRawDatabase(dir) { db in
                try Data.fetchOne(db, sql: "SELECT wrapped FROM slots WHERE name = 'system-passcode'")
            }
            #expect(sealer.confirmedSlots == [try #require(newSlot)])
            let reopened = try Vault.open(
                in: dir + "/vault", using: .passcode("a new passcode"), sealers: sealers(sealer))
            #expect(try reopened.mode == .system)
            reopened.close()
        }
    }

    @Test("rekey through the sealer: new key sealed by it, old slot and recovery key open nothing")
    func rekeyThroughTheSealer() throws {
        try withScratch { dir in
            let sealer = SecretSealer()
            let oldRecoveryKey = try makeSealedVault(dir, sealer)
            let oldSlot = try withRawDatabase(dir) { db in
                try Row.fetchOne(db, sql: "SELECT parameters, wrapped FROM slots WHERE name = 'system-passcode'")
            }
            let vault = try Vault.open(in: dir + "/vault", using: .passcode(passcode), sealers: sealers(sealer))
            let newRecoveryKey = try vault.rekey(passcode: passcode, sealer: sealer, cost: testCost)
            vault.close()
            // Opening proved the passcode once, rekey once more: each seen by the sealer; the new
            // slot was confirmed once it was in the vault.
            #expect(sealer.attempts == 2)
            let newSlot = try withRawDatabase(dir) { db in
                try Data.fetchOne(db, sql: "SELECT wrapped FROM slots WHERE name = 'system-passcode'")
            }
            #expect(sealer.confirmedSlots == [try #require(newSlot)])

            let reopened = try Vault.open(in: dir + "/vault", using: .passcode(passcode), sealers: sealers(sealer))
            #expect(try reopened.list().map(\.title) == ["kept"])
            #expect(try reopened.note(id: try reopened.list()[0].id).body == "secret body")
            #expect(try reopened.mode == .system)
            reopened.close()
            expectVaultError(.wrongRecoveryKey) {
                try Vault.open(in: dir + "/vault", using: .recoveryKey(oldRecoveryKey.displayString))
            }
            let byRecovery = try Vault.open(in: dir + "/vault", using: .recoveryKey(newRecoveryKey.displayString))
            byRecovery.close()

            // The slot of before (as an old backup holds it) put back: it opens nothing.
            let old = try #require(oldSlot)
            try withRawDatabase(dir) { db in
                try db.execute(
                    sql: "UPDATE slots SET parameters = ?, wrapped = ? WHERE name = 'system-passcode'",
                    arguments: [old[0] as Data, old[1] as Data])
            }
            expectVaultError(.tampered) {
                try Vault.open(in: dir + "/vault", using: .passcode(passcode), sealers: sealers(sealer))
            }
        }
    }

    @Test("a passcode change or a move from a mode the vault is not in is refused, nothing written, no sealer asked")
    func changeNeverMovesModes() throws {
        try withScratch { dir in
            let sealer = SecretSealer()
            _ = try makeSealedVault(dir, sealer)
            let before = try withRawDatabase(dir) { db in try Row.fetchAll(db, sql: "SELECT name, wrapped FROM slots") }
            let vault = try Vault.open(in: dir + "/vault", using: .passcode(passcode), sealers: sealers(sealer))
            // As a parallel `system disable` would have left it for a command that chose user mode.
            expectVaultError(.busy) { try vault.changePasscode(to: "new one", sealer: VaultPasscodeSealer(), cost: testCost) }
            expectVaultError(.busy) {
                try vault.movePasscodeSlot(from: .user, to: sealer, passcode: "new one", cost: testCost)
            }
            vault.close()
            let after = try withRawDatabase(dir) { db in try Row.fetchAll(db, sql: "SELECT name, wrapped FROM slots") }
            #expect(before == after)
            #expect(sealer.confirmedSlots.isEmpty)
            #expect(try LockedVault.open(in: dir + "/vault").header.mode == .system)
        }
    }

    @Test("rekey with a sealer of another mode than the vault's is refused before anything changes")
    func rekeyWithAnotherModesSealer() throws {
        try withScratch { dir in
            let sealer = SecretSealer()
            _ = try makeSealedVault(dir, sealer)
            let vault = try Vault.open(in: dir + "/vault", using: .passcode(passcode), sealers: sealers(sealer))
            expectVaultError(.busy) { try vault.rekey(passcode: passcode, sealer: VaultPasscodeSealer(), cost: testCost) }
            vault.close()
            #expect(sealer.attempts == 1)
            let reopened = try Vault.open(in: dir + "/vault", using: .passcode(passcode), sealers: sealers(sealer))
            reopened.close()
        }
    }

    @Test("rekey when the sealer cannot seal changes nothing")
    func rekeyWhenSealingFails() throws {
        try withScratch { dir in
            let sealer = SecretSealer()
            let recoveryKey = try makeSealedVault(dir, sealer)
            let failing = SealFails(inner: sealer)
            let vault = try Vault.open(in: dir + "/vault", using: .passcode(passcode), sealers: sealers(failing))
            #expect(
                expectVaultError(.sealerUnavailable) { try vault.rekey(passcode: passcode, sealer: failing, cost: testCost) }?
                    .message == "the sealer went away")
            #expect(try vault.list().map(\.title) == ["kept"])
            vault.close()
            let reopened = try Vault.open(in: dir + "/vault", using: .passcode(passcode), sealers: sealers(sealer))
            #expect(try reopened.list().map(\.title) == ["kept"])
            reopened.close()
            let byRecovery = try Vault.open(in: dir + "/vault", using: .recoveryKey(recoveryKey.displayString))
            byRecovery.close()
        }
    }

    @Test("a user-mode passcode slot is byte for byte what the vault's own sealer always wrote")
    func userModeSlotFormat() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            vault.close()
            let row = try #require(
                try withRawDatabase(dir) { db in
                    try Row.fetchOne(db, sql: "SELECT parameters, wrapped FROM slots WHERE name = 'passcode'")
                })
            let storeID = try Vault.storeID(in: dir + "/vault")
            let parameters = try ScryptParameters.decode(Array(row[0] as Data))
            let stretched = try parameters.deriveKey(Array(passcode.utf8))
            // The associated data as fingerlock wrote it before sealers existed.
            let ad = KeyHierarchy.associatedData("slot", storeID: storeID, [Array("passcode".utf8), Array(row[0] as Data)])
            let box = try AES.GCM.SealedBox(combined: row[1] as Data)
            #expect(try AES.GCM.open(box, using: stretched, authenticating: ad).count == 32)
        }
    }

    @Test("a vault made before modes existed (schema v1) opens in user mode and is upgraded")
    func upgradeFromV1() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            _ = try vault.add(title: "old", body: "body")
            vault.close()
            // Exactly what an earlier fingerlock left: no mode column, no v2-mode migration.
            try withRawDatabase(dir) { db in
                try db.execute(sql: "ALTER TABLE meta DROP COLUMN mode")
                try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v3-mode'")
            }
            #expect(try LockedVault.open(in: dir + "/vault").header.mode == .user)
            let reopened = try Vault.open(in: dir + "/vault", using: .passcode(passcode))
            #expect(try reopened.mode == .user)
            #expect(try reopened.list().map(\.title) == ["old"])
            reopened.close()
            let columns = try withRawDatabase(dir) { db in try db.columns(in: "meta").map(\.name) }
            #expect(columns.contains("mode"))
        }
    }
}
