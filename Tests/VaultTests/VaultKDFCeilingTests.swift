import Crypto
import FingerlockTestSupport
import Foundation
import GRDB
import Synchronization
import Testing

@testable import Vault

/// The passcode slot's scrypt parameters are read before anything authenticates them (the slot
/// table MAC needs the key they unlock). The ceiling on read must therefore be exactly what
/// calibration can produce, and a slot above it refused before any derivation.
@Suite("KDF ceiling", .timed)
struct VaultKDFCeilingTests {
    /// Layout: version, log2N, r (u32 LE), p (u32 LE), salt.
    func forge(_ parameters: [UInt8], log2N: UInt8? = nil, r: UInt32? = nil, p: UInt32? = nil) -> [UInt8] {
        var forged = parameters
        if let log2N { forged[1] = log2N }
        if let r { withUnsafeBytes(of: r.littleEndian) { forged.replaceSubrange(2..<6, with: $0) } }
        if let p { withUnsafeBytes(of: p.littleEndian) { forged.replaceSubrange(6..<10, with: $0) } }
        return forged
    }

    func parameters(log2N: UInt8, r: UInt32, p: UInt32) -> [UInt8] {
        ScryptParameters(log2N: log2N, r: r, p: p, salt: Array(repeating: 7, count: 32)).encoded
    }

    @Test("the ceiling is what calibration can choose: log2N ≤ 18, r = 8, p ≤ 4")
    func ceilingMatchesCalibration() throws {
        // The most calibration ever picks, the floor, and the cost the tests use all pass.
        for (log2N, p) in [(UInt8(18), UInt32(4)), (17, 1), (18, 1), (10, 1)] {
            #expect(throws: Never.self) { try ScryptParameters.decode(parameters(log2N: log2N, r: 8, p: p)) }
        }
        for (log2N, r, p) in [(UInt8(19), UInt32(8), UInt32(1)), (20, 8, 1), (18, 8, 5), (17, 16, 1), (17, 4, 1)] {
            #expect(throws: ScryptParameters.DecodeError.aboveCeiling, "\(log2N) \(r) \(p)") {
                try ScryptParameters.decode(parameters(log2N: log2N, r: r, p: p))
            }
        }
        #expect(throws: ScryptParameters.DecodeError.malformed) {
            try ScryptParameters.decode(parameters(log2N: 17, r: 8, p: 0))
        }
        #expect(throws: ScryptParameters.DecodeError.malformed) {
            try ScryptParameters.decode(Array(parameters(log2N: 17, r: 8, p: 1).dropLast()))
        }
    }

    @Test("a slot above the ceiling is refused before any key derivation runs")
    func refusedBeforeDerivation() throws {
        let keys = KeyHierarchy(master: KeyHierarchy.randomMaster(), storeID: UUID())
        let slot = try KeySlot.makePasscode(passcode, cost: testCost, keys: keys, sealer: VaultPasscodeSealer()).slot
        let derivations = Mutex(0)
        let counting: (ScryptParameters, [UInt8]) throws -> SymmetricKey = { parameters, passcode in
            derivations.withLock { $0 += 1 }
            return try parameters.deriveKey(passcode)
        }
        // The genuine slot goes through the counted derivation (so a zero below means something).
        #expect(try slot.unwrap(passcode: passcode, storeID: keys.storeID, sealer: VaultPasscodeSealer(), derive: counting) == keys.master)
        #expect(derivations.withLock { $0 } == 1)

        for forged in [forge(slot.parameters, log2N: 19), forge(slot.parameters, p: 5), forge(slot.parameters, r: 16)] {
            var damaged = slot
            damaged.parameters = forged
            #expect(throws: VaultError.passcodeSlotAboveCeiling) {
                try damaged.unwrap(passcode: passcode, storeID: keys.storeID, sealer: VaultPasscodeSealer(), derive: counting)
            }
        }
        #expect(derivations.withLock { $0 } == 1)
    }

    @Test("a forged slot says so, and the recovery key still opens the vault and resets the passcode")
    func forgedSlotInVault() throws {
        try withScratch { dir in
            let (vault, recoveryKey) = try makeVault(dir)
            try vault.add(title: "kept", body: "safe")
            vault.close()
            let original = try withRawDatabase(dir) { db in
                Array(try #require(try Data.fetchOne(db, sql: "SELECT parameters FROM slots WHERE name = 'passcode'")))
            }
            for forged in [forge(original, log2N: 19), forge(original, p: 5), forge(original, r: 16)] {
                try withRawDatabase(dir) { db in
                    try db.execute(sql: "UPDATE slots SET parameters = ? WHERE name = 'passcode'", arguments: [Data(forged)])
                }
                let error = expectVaultError(.tampered) { try Vault.open(in: dir + "/vault", using: .passcode(passcode)) }
                #expect(error == VaultError.passcodeSlotAboveCeiling)
                #expect(error?.remedy == .resetPasscodeWithRecoveryKey)
                // The slot-table MAC covers the forged bytes too; the recovery key still opens…
                let recovered = try Vault.open(in: dir + "/vault", using: .recoveryKey(recoveryKey.displayString))
                #expect(try recovered.list().map(\.title) == ["kept"])
                // …while a full check still reports the forged slot.
                #expect(expectVaultError(.tampered) { try recovered.verifyIntegrity() }?.part == "slot table")
                recovered.close()
            }
            // `passcode reset`: open with the recovery key, write a fresh passcode slot.
            let recovered = try Vault.open(in: dir + "/vault", using: .recoveryKey(recoveryKey.displayString))
            try recovered.changePasscode(to: "new passcode", cost: testCost)
            recovered.close()
            let reset = try Vault.open(in: dir + "/vault", using: .passcode("new passcode"))
            #expect(try reset.list().count == 1)
            try reset.verifyIntegrity()
        }
    }

    @Test("a fixed cost outside the ceiling is refused when the slot is made")
    func fixedCostChecked() throws {
        try withScratch { dir in
            expectVaultError(.invalidInput) {
                try Vault.create(
                    in: dir + "/r16", passcode: passcode, kind: .test, cost: .insecureForTestsOnly(log2N: 10, r: 16))
            }
            expectVaultError(.invalidInput) {
                try Vault.create(in: dir + "/n19", passcode: passcode, kind: .test, cost: .insecureForTestsOnly(log2N: 19))
            }
            _ = try Vault.create(in: dir + "/ok", passcode: passcode, kind: .test, cost: testCost)
        }
    }
}
