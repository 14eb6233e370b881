import Auth
import AuthCore
import FingerlockTestSupport
import FingerprintTestSupport
import Foundation
import Synchronization
import Testing
import Vault

@testable import Fingerprint

/// Two vaults on one match-on-chip reader (`virtual_device_storage`), as when two users, or one
/// user's two data directories, share a laptop's reader; fprintd's prints may sit there too. The
/// real policy (`AuthEnvironment` and its use cases), vaults and attempt files, and libfprint's own storage driver.
/// `scripts/test.sh` runs these with libfprint's own tests, in the second process, where they take turns
/// with them for the `FP_VIRTUAL_*` variables.
@Suite(.timed, .serialized, .exclusive(to: .processSettings))
struct SharedChipPolicyTests {
    /// A match counts only for a print sealed in this vault, whatever else the chip holds.
    @Test(.timeLimit(.minutes(2)))
    func eachVaultMatchesOnlyItsOwnPrints() async throws {
        try await SharedChipFixture.run { chip, alice, bob in
            let aliceID = try chip.scanID(finger: 7, owner: alice)
            let bobID = try chip.scanID(finger: 7, owner: bob)
            try await chip.enroll(.rightIndex, in: alice, touching: aliceID)
            try await chip.enroll(.rightIndex, in: bob, touching: bobID)
            #expect(try await chip.storedIDs().sorted() == [aliceID, bobID].sorted())

            // Alice's finger on Bob's vault: the chip knows it, but it is not Bob's.
            let stranger = await #expect(throws: AuthError.self) { try await chip.verify(bob, touching: aliceID) }
            #expect(stranger?.code == .authenticationFailed)
            #expect(try bob.attempts.read().failedTouches == 1)
            #expect(try await chip.verify(bob, touching: bobID) == .rightIndex)
            #expect(try bob.attempts.read().failedTouches == 0)
            await #expect(throws: AuthError.self) { try await chip.verify(alice, touching: bobID) }
            #expect(try await chip.verify(alice, touching: aliceID) == .rightIndex)
        }
    }

    /// Bob's listing tells his print from Alice's vault's and from fprintd's; deleting Alice's asks
    /// first, naming what stops working; a print of his own is refused (forget does that).
    @Test(.timeLimit(.minutes(2)))
    func storageIsListedByOwnerAndDeletedOnlyAfterConfirmation() async throws {
        try await SharedChipFixture.run { chip, alice, bob in
            let aliceID = try chip.scanID(finger: 7, owner: alice)
            let bobID = try chip.scanID(finger: 7, owner: bob)
            let fprintdID = VirtualDeviceSocket.scanID(finger: 2, user: "carol")
            try await chip.enroll(.rightIndex, in: alice, touching: aliceID)
            try await chip.enroll(.rightIndex, in: bob, touching: bobID)

            let storage = try await chip.storage(bob, inserting: [fprintdID])
            let owners = Dictionary(uniqueKeysWithValues: storage.entries.map { ($0.owner.kind, $0) })
            #expect(storage.entries.count == 3)
            #expect(owners["this-vault"]?.owner == .thisVault(.rightIndex))
            let aliceTag = try PrintLabel.tag(storeID: Vault.storeID(in: alice.directory))
            #expect(owners["other-vault"]?.owner == .otherVault(tag: aliceTag))
            #expect(owners["other-vault"]?.user == "alice")
            #expect(owners["foreign"]?.owner == .foreign(username: "carol"))
            #expect(owners["foreign"]?.print.finger == .leftIndex)
            #expect(owners["foreign"]?.consequence.contains("desktop login") == true)

            let aliceEntry = try #require(owners["other-vault"])
            // Declined: nothing goes.
            let asked = Mutex<[String]>([])
            let declined = try await chip.delete(aliceEntry.print.id, in: bob) { entry in
                asked.withLock { $0.append(entry.consequence) }
                return false
            }
            #expect(declined == nil)
            #expect(asked.withLock { $0 }.first?.contains("vault \(aliceTag)") == true)
            #expect(try await chip.storedIDs().contains(aliceID))
            // Confirmed: only that print goes.
            let deleted = try await chip.delete(aliceEntry.print.id, in: bob) { _ in true }
            #expect(deleted?.owner == .otherVault(tag: aliceTag))
            #expect(try await chip.storedIDs().sorted() == [bobID, fprintdID].sorted())

            // His own print: `forget`, which also updates the vault.
            let own = try #require(owners["this-vault"])
            let refused = await #expect(throws: AuthError.self) {
                _ = try await chip.delete(own.print.id, in: bob) { _ in true }
            }
            #expect(refused?.message.contains("fingerlock forget right-index-finger") == true)
            let unknown = await #expect(throws: AuthError.self) {
                _ = try await chip.delete("abcdef12", in: bob) { _ in true }
            }
            #expect(unknown?.code == .notFound)
        }
    }

    /// A finger the chip already holds for another vault is refused naming that vault and the fix.
    @Test(.timeLimit(.minutes(2)))
    func aDuplicateNamesItsOwnerAndTheCommandThatFreesIt() async throws {
        try await SharedChipFixture.run { chip, alice, bob in
            let aliceID = try chip.scanID(finger: 7, owner: alice)
            try await chip.enroll(.rightIndex, in: alice, touching: aliceID)
            let error = await #expect(throws: FingerprintError.self) {
                try await chip.enroll(.leftThumb, in: bob, touching: aliceID, touches: 1)
            }
            let listed = try await chip.storage(bob)
            let aliceEntry = try #require(listed.entries.first)
            let aliceTag = try PrintLabel.tag(storeID: Vault.storeID(in: alice.directory))
            #expect(error?.code == .duplicate)
            #expect(error?.message.contains("vault \(aliceTag)") == true)
            #expect(error?.message.contains("fingerlock storage delete \(aliceEntry.print.id)") == true)
            #expect(error?.message.hasSuffix("Nothing was saved.") == true)
            #expect(try await Enrollment(bob.environment).enrolledFingers().isEmpty)
        }
    }

    /// DATA_NOT_FOUND for a print wiped from the chip (here by another vault's delete) is not a
    /// failed touch: five of them never lock the user out, and each says how to re-enroll.
    @Test(.timeLimit(.minutes(2)))
    func aPrintWipedFromTheChipIsNotCountedAndSaysHowToReEnroll() async throws {
        try await SharedChipFixture.run { chip, alice, bob in
            let aliceID = try chip.scanID(finger: 7, owner: alice)
            try await chip.enroll(.rightIndex, in: alice, touching: aliceID)
            let entry = try #require(try await chip.storage(bob).entries.first)
            _ = try await chip.delete(entry.print.id, in: bob) { _ in true }
            for _ in 0..<(TouchLedger.lockoutThreshold + 1) {
                let error = await #expect(throws: AuthError.self) {
                    try await chip.verify(alice, touching: nil, then: .error(7))
                }
                #expect(error?.code == .biometryNotAvailable)
                #expect(error?.unavailability == .printNotStored)
                #expect(error?.message.contains("no longer stored") == true)
                #expect(error?.message.contains("fingerlock enroll right-index-finger") == true)
            }
            #expect(try alice.attempts.read().failedTouches == 0)
        }
    }

    /// A reader that cannot list (synaptics) verifies against one named print: its DATA_NOT_FOUND
    /// says that print is gone. No failed touch, so the right finger never locks the user out, and
    /// each touch says how to re-enroll. (The plain virtual driver cannot list either.)
    @Test(.timeLimit(.minutes(2)))
    func aNamedPrintAReaderThatCannotListNoLongerHasIsNotCounted() async throws {
        try await SharedChipFixture.run(on: "virtual_device") { chip, alice, _ in
            #expect(!chip.reader.info.features.contains(.storageList))
            try await chip.enroll(.rightIndex, in: alice, touching: try chip.scanID(finger: 7, owner: alice))
            for _ in 0..<(TouchLedger.lockoutThreshold + 1) {
                let error = await #expect(throws: AuthError.self) {
                    try await chip.verify(alice, touching: nil, then: .error(7))
                }
                #expect(error?.code == .biometryNotAvailable)
                #expect(error?.unavailability == .printNotStored)
                #expect(error?.message.contains("The right-index-finger print is no longer stored") == true)
                #expect(error?.message.contains("fingerlock enroll right-index-finger") == true)
            }
            #expect(try alice.attempts.read().failedTouches == 0)
        }
    }

    /// A listing that fails proves nothing: the touch the reader answered stays counted.
    @Test(.timeLimit(.minutes(2)))
    func aFailedListingLeavesTheTouchCounted() async throws {
        try await SharedChipFixture.run { chip, alice, bob in
            try await chip.enroll(.rightIndex, in: alice, touching: try chip.scanID(finger: 7, owner: alice))
            let entry = try #require(try await chip.storage(bob).entries.first)
            _ = try await chip.delete(entry.print.id, in: bob) { _ in true }
            // DATA_NOT_FOUND for the scan, then a protocol error for the listing that would have
            // shown the print gone.
            let error = await #expect(throws: AuthError.self) {
                try await chip.verify(alice, touching: nil, then: .error(7), .error(5))
            }
            #expect(error?.code == .authenticationFailed)
            #expect(try alice.attempts.read().failedTouches == 1)
        }
    }

    /// A print labelled with this vault's tag that the vault does not hold (an interrupted enrollment
    /// left it) is told apart from another vault's, and nothing depends on it.
    @Test(.timeLimit(.minutes(2)))
    func aPrintOfThisVaultItNoLongerUsesIsLeftOver() async throws {
        try await SharedChipFixture.run { chip, alice, _ in
            let stray = try chip.scanID(finger: 3, owner: alice)
            let storage = try await chip.storage(alice, inserting: [stray])
            let entry = try #require(storage.entries.first)
            #expect(storage.entries.count == 1)
            #expect(entry.owner == .leftOver)
            #expect(entry.consequence.contains("Nothing stops working"))
        }
    }

    /// While a print of the scan is still on the chip, DATA_NOT_FOUND is a real no-match and counts;
    /// the message names a print the chip lost meanwhile.
    @Test(.timeLimit(.minutes(2)))
    func dataNotFoundCountsWhileAPrintOfTheScanIsStillStored() async throws {
        try await SharedChipFixture.run { chip, alice, bob in
            let indexID = try chip.scanID(finger: 7, owner: alice)
            let thumbID = try chip.scanID(finger: 1, owner: alice)
            try await chip.enroll(.rightIndex, in: alice, touching: indexID)
            try await chip.enroll(.leftThumb, in: alice, touching: thumbID)

            let error = await #expect(throws: AuthError.self) { try await chip.verify(alice, touching: nil, then: .error(7)) }
            #expect(error?.code == .authenticationFailed)
            #expect(try alice.attempts.read().failedTouches == 1)

            let thumb = try #require(try await chip.storage(bob).entries.first { $0.print.finger == .leftThumb })
            _ = try await chip.delete(thumb.print.id, in: bob) { _ in true }
            let partly = await #expect(throws: AuthError.self) { try await chip.verify(alice, touching: nil, then: .error(7)) }
            #expect(partly?.code == .authenticationFailed)
            #expect(partly?.message.hasPrefix("No match.") == true)
            #expect(partly?.message.contains("The left-thumb print is no longer stored") == true)
            #expect(try alice.attempts.read().failedTouches == 2)
        }
    }
}

/// One virtual_device_storage reader and the vaults that share it.
struct SharedChipFixture {
    let reader: LibfprintReader
    let context: LibfprintContext
    let socket: VirtualDeviceSocket

    /// One user's fingerlock: data directory, policy, counters.
    struct User {
        let name: String
        let directory: String
        let environment: AuthEnvironment
        let attempts: FileAttemptStore
    }

    static let passcode = "shared chip 42"

    /// `driver`: libfprint's storage driver (`virtual_device_storage`), or the plain one
    /// (`virtual_device`) to stand for a reader that cannot list.
    static func run(
        on driver: String = "virtual_device_storage", _ body: (SharedChipFixture, User, User) async throws -> Void
    ) async throws {
        let path = VirtualDeviceEnvironment.prepare(drivers: [driver])[driver]!
        let context = LibfprintContext()
        defer { unlink(path) }
        let reader = try await context.reader(matching: driver)
        let fixture = SharedChipFixture(reader: reader, context: context, socket: VirtualDeviceSocket(path: path))
        let alice = try await fixture.user("alice")
        let bob = try await fixture.user("bob")
        defer {
            for user in [alice, bob] { try? FileManager.default.removeItem(atPath: user.directory) }
        }
        try await body(fixture, alice, bob)
        await context.waitUntilIdle()
    }

    /// A user with a vault (a test vault: the reader is a virtual one).
    func user(_ name: String) async throws -> User {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fl-chip-\(UUID().uuidString)").path
        let attempts = FileAttemptStore(dataDirectory: directory)
        // The user types the passcode whenever asked (never more than a test's few prompts).
        let interaction = ScriptedInteraction(secrets: Array(repeating: Self.passcode, count: 100))
        let auth = AuthEnvironment(
            .init(
                passcodes: VaultPasscodeRepository(
                    dataDirectory: directory, configuration: VaultConfiguration(now: Date.init),
                    cost: .insecureForTestsOnly()),
                readerLookup: .found(reader), keyCache: InMemoryKeyCache(now: Date.init), reuseMarkers: InMemoryKeyCache(now: Date.init),
                attempts: attempts,
                interaction: interaction, remoteSession: { nil }, now: Date.init,
                connectedReaders: { [reader] in [reader] }))
        try await PasscodeManagement(auth).setPasscode().close()
        return User(name: name, directory: directory, environment: auth, attempts: attempts)
    }

    /// The id the chip stores for `owner`'s print: what a real driver builds from the print's username.
    func scanID(finger: Int, owner: User) throws -> String {
        let label = PrintLabel.username(user: owner.name, storeID: try Vault.storeID(in: owner.directory))
        return VirtualDeviceSocket.scanID(finger: finger, user: label)
    }

    func enroll(_ finger: Finger, in user: User, touching id: String, touches: Int = 5) async throws {
        async let enrolled = Enrollment(user.environment).enroll(finger, username: user.name, confirmReplacing: { _ in false }) { _ in }
        for _ in 0..<touches { try await socket.touch(id) }
        _ = try await enrolled
        await context.waitUntilIdle()
    }

    /// One touch for `verify` (`fingerlock verify`): the matched finger. `commands` follow the touch,
    /// each sent once an operation (the scan, then a listing) waits for it.
    func verify(_ user: User, touching id: String?, then commands: VirtualDeviceCommand...) async throws -> Finger {
        async let verified = TouchVerification(user.environment).verifyTouch(finger: nil)
        if let id { try await socket.touch(id) }
        for command in commands { try await socket.queue(command) }
        do {
            let finger = try await verified.finger
            await context.waitUntilIdle()
            return try #require(finger)
        } catch {
            await context.waitUntilIdle()
            throw error
        }
    }

    func storage(_ user: User, inserting ids: [String] = []) async throws -> ReaderStorageManagement.ReaderStorage {
        async let storage = ReaderStorageManagement(user.environment).readerStorage()
        // Without commands, the listing goes ahead after half a second.
        for id in ids { try await socket.queue(.insert(id)) }
        if !ids.isEmpty { try await socket.send(.cont) }
        let result = try await storage
        await context.waitUntilIdle()
        return result
    }

    func delete(
        _ id: String, in user: User, confirm: @escaping @Sendable (ReaderStorageManagement.StoredPrintEntry) async throws -> Bool
    ) async throws -> ReaderStorageManagement.StoredPrintEntry? {
        // Listing and deleting each wait half a second for commands, then go ahead.
        let result = try await ReaderStorageManagement(user.environment).deleteStoredPrint(id: id, confirm: confirm)
        await context.waitUntilIdle()
        return result
    }

    /// The ids on the chip, read during a listing.
    func storedIDs() async throws -> [String] {
        async let listing = reader.storedPrints(known: [])
        let ids = try await socket.storedIDs()
        try await socket.send(.cont)
        _ = try await listing
        await context.waitUntilIdle()
        return ids
    }
}
