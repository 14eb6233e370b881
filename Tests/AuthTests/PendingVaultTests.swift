import Auth
import Crypto
import FingerlockTestSupport
import Foundation
import Testing
import Vault

#if canImport(Glibc)
    import Glibc
#endif

/// The real repository reads a vault's header and unlocks it on one connection: a command opens the
/// vault's database once, not once for the header and again for the unlock.
@Suite("One open of the vault per command", .timed)
struct PendingVaultTests {
    let install = Installation()

    /// This process's descriptors open on `path`, and on a file that was at `path` and was replaced.
    func descriptors(on path: String) -> (current: Int, replaced: Int) {
        let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        let links = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? [])
            .compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0) }
        return (links.filter { $0 == target }.count, links.filter { $0 == target + " (deleted)" }.count)
    }

    var database: String { install.directory + "/vault.sqlite" }

    @Test func theHeaderAndTheUnlockShareOneConnection() async throws {
        try await install.setUp(fingers: [])
        let key = try install.masterKey()
        #expect(descriptors(on: database).current == 0)
        let passcodes = install.passcodes
        let header = try passcodes.header()
        #expect(header.mode == .user)
        #expect(descriptors(on: database).current == 1)
        // No cached key: still the one connection, for the passcode that follows.
        #expect(try passcodes.open(masterKeyFor: { _ in nil }) == nil)
        #expect(descriptors(on: database).current == 1)
        #expect(throws: VaultError.self) { try passcodes.open(with: .passcode("not it")) }
        let vault = try passcodes.open(with: .passcode(Installation.passcode))
        #expect(descriptors(on: database).current == 1)
        #expect(try vault.storeID == header.storeID)
        vault.close()
        #expect(descriptors(on: database).current == 0)
        // Taken once: the next unlock opens the database itself.
        let again = try #require(try passcodes.open(masterKeyFor: { _ in key }))
        again.close()
    }

    @Test func aVaultFileReplacedAfterTheHeaderIsOpenedAfresh() async throws {
        try await install.setUp(fingers: [])
        let passcodes = install.passcodes
        _ = try passcodes.header()
        let copy = install.directory + "/replacement.sqlite"
        try FileManager.default.copyItem(atPath: database, toPath: copy)
        #expect(chmod(copy, 0o600) == 0)
        #expect(rename(copy, database) == 0)
        #expect(descriptors(on: database).replaced == 1)
        let vault = try passcodes.open(with: .passcode(Installation.passcode))
        defer { vault.close() }
        // The connection to the replaced file is closed, the new file is the one read.
        #expect(descriptors(on: database) == (current: 1, replaced: 0))
    }

    @Test func aHeaderNobodyUnlocksIsClosedWithTheRepository() async throws {
        try await install.setUp(fingers: [])
        do {
            let passcodes = install.passcodes
            _ = try passcodes.header()
            #expect(descriptors(on: database).current == 1)
        }
        #expect(descriptors(on: database).current == 0)
    }
}
