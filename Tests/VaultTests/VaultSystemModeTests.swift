import Crypto
import Foundation
import GRDB
import Synchronization
import Testing
import Vault

/// fingerlockd in memory: a secret per vault, the KEK as the service derives it, and a count of
/// the passcode attempts it saw. Enough to test the vault's side of the system-mode slot.
final class FakeSystemSlots: SystemSlotService {
    private let state = Mutex<(secrets: [UUID: SymmetricKey], attempts: Int, proven: [Data])>(([:], 0, []))

    var attempts: Int { state.withLock { $0.attempts } }
    /// Every slot opened, in order (a client proves a slot it just committed).
    var provenSlots: [Data] { state.withLock { $0.proven } }
    func isRegistered(_ vault: UUID) -> Bool { state.withLock { $0.secrets[vault] != nil } }

    func register(vault: UUID) throws(SystemSlotError) {
        state.withLock { if $0.secrets[vault] == nil { $0.secrets[vault] = SymmetricKey(size: .bits256) } }
    }

    private func kek(_ vault: UUID, _ stretched: SymmetricKey) throws(SystemSlotError) -> SymmetricKey {
        guard let secret = state.withLock({ $0.secrets[vault] }) else {
            throw SystemSlotError(.notRegistered, "not registered")
        }
        var material = stretched.withUnsafeBytes { Array($0) }
        material += secret.withUnsafeBytes { Array($0) }
        return HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: material),
            info: Array("fingerlock system-mode passcode slot v1".utf8) + Array(vault.uuidString.lowercased().utf8),
            outputByteCount: 32)
    }

    func seal(
        vault: UUID, stretched: SymmetricKey, key: SymmetricKey, associatedData: [UInt8], authorizedBy currentKey: SymmetricKey?
    )
        throws(SystemSlotError) -> Data
    {
        let kek = try kek(vault, stretched)
        return try! AES.GCM.seal(key.withUnsafeBytes { Data($0) }, using: kek, authenticating: associatedData)
            .combined!
    }

    func unlock(vault: UUID, stretched: SymmetricKey, sealedSlot: Data, associatedData: [UInt8])
        throws(SystemSlotError) -> SymmetricKey
    {
        let kek = try kek(vault, stretched)
        let count = state.withLock {
            $0.attempts += 1
            return $0.attempts
        }
        guard let box = try? AES.GCM.SealedBox(combined: sealedSlot),
            let key = try? AES.GCM.open(box, using: kek, authenticating: associatedData)
        else { throw SystemSlotError(.wrongPasscode(failedPasscodes: count, delaySeconds: 0), "wrong") }
        state.withLock { $0.proven.append(sealedSlot) }
        return SymmetricKey(data: key)
    }

    func lock(vault: UUID) throws(SystemSlotError) {}

    func status(vault: UUID) throws(SystemSlotError) -> SystemVaultStatus {
        SystemVaultStatus(
            registered: isRegistered(vault), unlocked: false, unlockedSeconds: 0, failedPasscodes: attempts,
            delaySeconds: 0)
    }

    func forget(vault: UUID, stretched: SymmetricKey, sealedSlot: Data, associatedData: [UInt8])
        throws(SystemSlotError)
    {
        _ = try unlock(vault: vault, stretched: stretched, sealedSlot: sealedSlot, associatedData: associatedData)
        _ = state.withLock { $0.secrets.removeValue(forKey: vault) }
    }
}

@Suite("Vault in system mode")
struct VaultSystemModeTests {
    func withService(_ service: any SystemSlotService) -> VaultConfiguration {
        var settings = configuration()
        settings.systemSlots = service
        return settings
    }

    /// A vault with one note, moved into system mode through `service`; returns its recovery key.
    func makeSystemVault(_ dir: String, _ service: FakeSystemSlots) throws -> RecoveryKey {
        let (vault, recoveryKey) = try Vault.create(
            in: dir + "/vault", passcode: passcode, kind: .test, cost: testCost, configuration: withService(service))
        _ = try vault.add(title: "kept", body: "secret body")
        try vault.enableSystemMode(passcode: passcode, cost: testCost)
        #expect(try vault.mode == .system)
        vault.close()
        return recoveryKey
    }

    @Test("the passcode opens a system-mode vault only through the service, which counts the attempts")
    func roundTrip() throws {
        try withScratch { dir in
            let service = FakeSystemSlots()
            _ = try makeSystemVault(dir, service)
            #expect(try LockedVault.open(in: dir + "/vault").header.mode == .system)
            let vault = try Vault.open(in: dir + "/vault", using: .passcode(passcode), configuration: withService(service))
            #expect(try vault.list().map(\.title) == ["kept"])
            #expect(try vault.mode == .system)
            vault.close()
            expectVaultError(.wrongPasscode) {
                try Vault.open(in: dir + "/vault", using: .passcode("wrong one"), configuration: withService(service))
            }
            #expect(service.attempts == 2)
        }
    }

    @Test("without the service, or with another service's secret, the right passcode opens nothing")
    func passcodeNeedsTheService() throws {
        try withScratch { dir in
            _ = try makeSystemVault(dir, FakeSystemSlots())
            expectVaultError(.serviceUnavailable) { try Vault.open(in: dir + "/vault", using: .passcode(passcode)) }
            let other = FakeSystemSlots()
            expectVaultError(.serviceUnavailable) {
                try Vault.open(in: dir + "/vault", using: .passcode(passcode), configuration: withService(other))
            }
            try other.register(vault: try Vault.storeID(in: dir + "/vault"))
            expectVaultError(.wrongPasscode) {
                try Vault.open(in: dir + "/vault", using: .passcode(passcode), configuration: withService(other))
            }
        }
    }

    @Test("the recovery key opens a system-mode vault without any service")
    func recoveryKeyAlone() throws {
        try withScratch { dir in
            let recoveryKey = try makeSystemVault(dir, FakeSystemSlots())
            let vault = try Vault.open(in: dir + "/vault", using: .recoveryKey(recoveryKey.displayString))
            #expect(try vault.list().map(\.title) == ["kept"])
            vault.close()
        }
    }

    @Test("flipping the recorded mode either way is tampering with the slot table")
    func modeFlip() throws {
        try withScratch { dir in
            let recoveryKey = try makeSystemVault(dir, FakeSystemSlots())
            try withRawDatabase(dir) { db in try db.execute(sql: "UPDATE meta SET mode = 'user'") }
            #expect(
                expectVaultError(.tampered) {
                    try Vault.open(in: dir + "/vault", using: .recoveryKey(recoveryKey.displayString))
                }?.part == "slot table")
            expectVaultError(.tampered) { try Vault.open(in: dir + "/vault", using: .passcode(passcode)) }
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

    @Test("system disable writes a user-mode slot and the service forgets the vault; notes intact")
    func disableRoundTrip() throws {
        try withScratch { dir in
            let service = FakeSystemSlots()
            _ = try makeSystemVault(dir, service)
            let storeID = try Vault.storeID(in: dir + "/vault")
            let vault = try Vault.open(in: dir + "/vault", using: .passcode(passcode), configuration: withService(service))
            #expect(try vault.disableSystemMode(passcode: passcode, cost: testCost) == nil)
            vault.close()
            #expect(!service.isRegistered(storeID))
            #expect(try LockedVault.open(in: dir + "/vault").header.mode == .user)
            let reopened = try Vault.open(in: dir + "/vault", using: .passcode(passcode))
            #expect(try reopened.list().map(\.title) == ["kept"])
            reopened.close()
        }
    }

    @Test("a passcode change in system mode reseals through the service")
    func changeInSystemMode() throws {
        try withScratch { dir in
            let service = FakeSystemSlots()
            let recoveryKey = try makeSystemVault(dir, service)
            let vault = try Vault.open(
                in: dir + "/vault", using: .recoveryKey(recoveryKey.displayString), configuration: withService(service))
            #expect(service.provenSlots.isEmpty)
            try vault.changePasscode(to: "a new passcode", cost: testCost)
            vault.close()
            // The new slot, once in the vault, was proven to the service (so it retires the old one);
            // enabling system mode proved nothing (the service holds no key before an unlock).
            let newSlot = try withRawDatabase(dir) { db in
                try Data.fetchOne(db, sql: "SELECT wrapped FROM slots WHERE name = 'system-passcode'")
            }
            #expect(service.provenSlots == [try #require(newSlot)])
            let reopened = try Vault.open(
                in: dir + "/vault", using: .passcode("a new passcode"), configuration: withService(service))
            #expect(try reopened.mode == .system)
            reopened.close()
        }
    }

    @Test("rekey in system mode: new key sealed through the service, old slot and recovery key open nothing")
    func rekeyInSystemMode() throws {
        try withScratch { dir in
            let service = FakeSystemSlots()
            let oldRecoveryKey = try makeSystemVault(dir, service)
            let oldSlot = try withRawDatabase(dir) { db in
                try Row.fetchOne(db, sql: "SELECT parameters, wrapped FROM slots WHERE name = 'system-passcode'")
            }
            let vault = try Vault.open(in: dir + "/vault", using: .passcode(passcode), configuration: withService(service))
            let newRecoveryKey = try vault.rekey(passcode: passcode, cost: testCost)
            vault.close()
            // Opening proved the passcode once, rekey once more, and the new slot once it was in the
            // vault (so the service retires the old one): each counted by the service.
            #expect(service.attempts == 3)
            let newSlot = try withRawDatabase(dir) { db in
                try Data.fetchOne(db, sql: "SELECT wrapped FROM slots WHERE name = 'system-passcode'")
            }
            #expect(service.provenSlots.last == newSlot)

            let reopened = try Vault.open(
                in: dir + "/vault", using: .passcode(passcode), configuration: withService(service))
            #expect(try reopened.list().map(\.title) == ["kept"])
            #expect(try reopened.note(id: try reopened.list()[0].id).body == "secret body")
            #expect(try reopened.mode == .system)
            reopened.close()
            #expect(service.attempts == 4)
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
                try Vault.open(in: dir + "/vault", using: .passcode(passcode), configuration: withService(service))
            }
        }
    }

    @Test("rekey in system mode when the service cannot seal changes nothing")
    func rekeyWhenSealingFails() throws {
        try withScratch { dir in
            let service = FakeSystemSlots()
            let recoveryKey = try makeSystemVault(dir, service)
            let failing = SealFails(service)
            let vault = try Vault.open(in: dir + "/vault", using: .passcode(passcode), configuration: withService(failing))
            expectVaultError(.serviceUnavailable) { try vault.rekey(passcode: passcode, cost: testCost) }
            #expect(try vault.list().map(\.title) == ["kept"])
            vault.close()
            let reopened = try Vault.open(
                in: dir + "/vault", using: .passcode(passcode), configuration: withService(service))
            #expect(try reopened.list().map(\.title) == ["kept"])
            reopened.close()
            let byRecovery = try Vault.open(in: dir + "/vault", using: .recoveryKey(recoveryKey.displayString))
            byRecovery.close()
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

/// A service that opens slots but has stopped sealing them (it went away between the two calls).
struct SealFails: SystemSlotService {
    let inner: FakeSystemSlots
    init(_ inner: FakeSystemSlots) { self.inner = inner }

    func register(vault: UUID) throws(SystemSlotError) { try inner.register(vault: vault) }
    func seal(
        vault: UUID, stretched: SymmetricKey, key: SymmetricKey, associatedData: [UInt8], authorizedBy currentKey: SymmetricKey?
    )
        throws(SystemSlotError) -> Data
    { throw SystemSlotError(.unreachable, "fingerlockd went away") }
    func unlock(vault: UUID, stretched: SymmetricKey, sealedSlot: Data, associatedData: [UInt8])
        throws(SystemSlotError) -> SymmetricKey
    {
        try inner.unlock(vault: vault, stretched: stretched, sealedSlot: sealedSlot, associatedData: associatedData)
    }
    func lock(vault: UUID) throws(SystemSlotError) { try inner.lock(vault: vault) }
    func forget(vault: UUID, stretched: SymmetricKey, sealedSlot: Data, associatedData: [UInt8])
        throws(SystemSlotError)
    { try inner.forget(vault: vault, stretched: stretched, sealedSlot: sealedSlot, associatedData: associatedData) }
    func status(vault: UUID) throws(SystemSlotError) -> SystemVaultStatus { try inner.status(vault: vault) }
}
