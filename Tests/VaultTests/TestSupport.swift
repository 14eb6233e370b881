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

/// The cheap KDF cost every test vault uses (through the clearly named test-only API).
let testCost = KDFCost.insecureForTestsOnly(log2N: 10)
let passcode = "correct horse"

/// A private scratch directory, removed when the test's closure returns.
func withScratch<T>(_ body: (String) throws -> T) throws -> T {
    let path = FileManager.default.temporaryDirectory.path + "/vault-tests-\(UUID().uuidString)"
    #expect(mkdir(path, 0o700) == 0)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try body(path)
}

/// `withScratch` for a body that awaits.
func withAsyncScratch<T>(_ body: (String) async throws -> T) async throws -> T {
    let path = FileManager.default.temporaryDirectory.path + "/vault-tests-\(UUID().uuidString)"
    #expect(mkdir(path, 0o700) == 0)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try await body(path)
}

func configuration(pageSize: Int? = nil) -> VaultConfiguration {
    // One second per reading, so every change gets a distinct, known date.
    let clock = TestClock(Date(timeIntervalSinceReferenceDate: 700_000_000), advancingEachReadingBy: 1)
    var configuration = VaultConfiguration(lockTimeout: .seconds(20), now: { clock.now() })
    configuration.pageSize = pageSize
    return configuration
}

/// A fresh test vault in `directory/vault`.
func makeVault(_ directory: String, kind: VaultKind = .test, pageSize: Int? = nil) throws -> (Vault, RecoveryKey) {
    try Vault.create(
        in: directory + "/vault", passcode: passcode, kind: kind, cost: testCost,
        configuration: configuration(pageSize: pageSize))
}

/// Asserts that `body` throws a VaultError with `code`, and returns it.
@discardableResult
func expectVaultError<T>(
    _ code: VaultError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> T
) -> VaultError? {
    do {
        _ = try body()
        Issue.record("expected VaultError.\(code), but it succeeded", sourceLocation: sourceLocation)
        return nil
    } catch let error as VaultError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected VaultError.\(code), got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// Direct SQL access to a closed vault's file, to play the attacker.
func withRawDatabase<T>(_ directory: String, _ body: (Database) throws -> T) throws -> T {
    let queue = try DatabaseQueue(path: directory + "/vault/vault.sqlite")
    defer { try? queue.close() }
    return try queue.writeWithoutTransaction { db in try body(db) }
}

func hex(_ key: SymmetricKey) -> String {
    key.withUnsafeBytes { $0.map { String(format: "%02x", $0) }.joined() }
}

func sampleNotes(_ count: Int, marker: String = "") -> [(title: String, body: String, tags: [String])] {
    (0..<count).map { index in
        ("Note \(index) \(marker)", "Body \(index): Straße, naïve café 🍰 \(marker)\nsecond line", ["tag\(index % 3)", "all"])
    }
}

/// A note's stored row as raw bytes: what an attacker saves before the note changes.
struct StoredNoteRow {
    var revision: Int64
    var header: Data
    var body: Data
}

func storedNoteRow(_ id: UUID, _ dir: String) throws -> StoredNoteRow {
    try withRawDatabase(dir) { db in
        let row = try #require(
            try Row.fetchOne(
                db,
                sql: "SELECT n.revision, n.header, b.body FROM notes n JOIN note_bodies b ON b.note = n.seq WHERE n.id = ?",
                arguments: [id.uuidString.lowercased()]))
        return StoredNoteRow(revision: row[0], header: row[1], body: row[2])
    }
}

/// Writes a saved row back over the note's current one (an authentic but older revision).
func putBack(_ row: StoredNoteRow, of id: UUID, _ dir: String) throws {
    try withRawDatabase(dir) { db in
        try db.execute(
            sql: "UPDATE notes SET revision = ?, header = ? WHERE id = ?",
            arguments: [row.revision, row.header, id.uuidString.lowercased()])
        try db.execute(
            sql: "UPDATE note_bodies SET body = ? WHERE note = (SELECT seq FROM notes WHERE id = ?)",
            arguments: [row.body, id.uuidString.lowercased()])
    }
}

/// These tests' vaults are in user mode: the vault's own sealer seals their passcode slots.
extension Vault {
    func changePasscode(to passcode: String, cost: KDFCost) throws(VaultError) {
        try changePasscode(to: passcode, sealer: VaultPasscodeSealer(), cost: cost)
    }

    func rekey(passcode: String, cost: KDFCost, recoveryKey: RecoveryKey = .generate()) throws(VaultError) -> RecoveryKey {
        try rekey(passcode: passcode, sealer: VaultPasscodeSealer(), cost: cost, recoveryKey: recoveryKey)
    }
}
