import Auth
import AuthCore
import Crypto
import FingerlockTestSupport
import Fingerprint
import Foundation
import Synchronization
import Testing
import Vault

/// A key cache that counts lookups, to tell what happened before a pending reader was known.
final class CountingKeyCache: KeyCache {
    let inner: any KeyCache
    let loads = Atomic<Int>(0)

    init(_ inner: any KeyCache) { self.inner = inner }

    func unavailableReason() -> String? { inner.unavailableReason() }
    func store(_ key: SymmetricKey, name: String, lifetime: Duration) throws(KeyCacheError) {
        try inner.store(key, name: name, lifetime: lifetime)
    }
    func load(name: String) throws(KeyCacheError) -> SymmetricKey? {
        loads.add(1, ordering: .sequentiallyConsistent)
        return try inner.load(name: name)
    }
    func invalidate(name: String) throws(KeyCacheError) -> Bool { try inner.invalidate(name: name) }
    func invalidateAll() throws(KeyCacheError) -> Int { try inner.invalidateAll() }
}

/// A key cache that notes, at each read, whether `condition` held then.
final class ObservingKeyCache: KeyCache {
    let inner: any KeyCache
    let condition: @Sendable () -> Bool
    let heldAtEveryRead = Mutex<[Bool]>([])

    init(_ inner: any KeyCache, noting condition: @escaping @Sendable () -> Bool) {
        self.inner = inner
        self.condition = condition
    }

    func unavailableReason() -> String? { inner.unavailableReason() }
    func store(_ key: SymmetricKey, name: String, lifetime: Duration) throws(KeyCacheError) {
        try inner.store(key, name: name, lifetime: lifetime)
    }
    func load(name: String) throws(KeyCacheError) -> SymmetricKey? {
        let held = condition()
        heldAtEveryRead.withLock { $0.append(held) }
        return try inner.load(name: name)
    }
    func invalidate(name: String) throws(KeyCacheError) -> Bool { try inner.invalidate(name: name) }
    func invalidateAll() throws(KeyCacheError) -> Int { try inner.invalidateAll() }
}

/// `verifyTouch` with a reader still being found (libfprint enumerating): the cached key opens the
/// vault meanwhile, and the passcode is asked for only once the reader is known to be there.
@Suite(.timed, .timeLimit(.minutes(1))) struct ReaderLookupTests {
    let install = Installation()

    func context(_ lookup: ReaderLookup, interaction: ScriptedInteraction, cache: any KeyCache) -> AuthContext {
        install.context(lookup, interaction: interaction, cache: cache)
    }

    @Test func theCachedKeyOpensTheVaultBeforeTheReaderIsKnown() async throws {
        try await install.setUp()
        let cache = CountingKeyCache(install.cache)
        // The lookup finishes only after the vault has been opened with the cached key (or gives up
        // after two seconds): were the reader awaited first, it would give up.
        let sawTheVaultOpened = Mutex(false)
        let lookup = ReaderLookup.started {
            let deadline = ContinuousClock.now + .seconds(2)
            while cache.loads.load(ordering: .sequentiallyConsistent) == 0 && ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(1))
            }
            sawTheVaultOpened.withLock { $0 = cache.loads.load(ordering: .sequentiallyConsistent) > 0 }
            return (Installation.reader([.finger(.rightIndex)]), nil)
        }
        let interaction = ScriptedInteraction()
        let result = try await TouchVerification(context(lookup, interaction: interaction, cache: cache).environment).verifyTouch(finger: nil)
        #expect(result.finger == .rightIndex)
        #expect(interaction.prompts.isEmpty)
        #expect(sawTheVaultOpened.withLock { $0 })
    }

    @Test func aReaderFoundLaterIsWaitedFor() async throws {
        try await install.setUp()
        let lookup = ReaderLookup.started {
            try? await Task.sleep(for: .milliseconds(200))
            return (Installation.reader([.finger(.rightIndex)]), nil)
        }
        let result = try await TouchVerification(context(lookup, interaction: ScriptedInteraction(), cache: install.cache).environment).verifyTouch(
            finger: .rightIndex)
        #expect(result.finger == .rightIndex)
        #expect(try install.attempts.read().failedTouches == 0)
    }

    @Test func noReaderFailsWithoutAskingForThePasscode() async throws {
        try await install.setUp()
        try install.cache.invalidate(name: try storeID())
        let interaction = ScriptedInteraction(secrets: [Installation.passcode])
        let lookup = ReaderLookup.started { (nil, FingerprintError(.busy, "The reader is busy.")) }
        let error = await #expect(throws: AuthError.self) {
            _ = try await TouchVerification(context(lookup, interaction: interaction, cache: install.cache).environment).verifyTouch(finger: nil)
        }
        #expect(error?.unavailability == .busy)
        #expect(error?.message == "The reader is busy.")
        #expect(interaction.prompts.isEmpty)
        #expect(try install.attempts.read().failedTouches == 0)
    }

    @Test func withoutACachedKeyThePasscodeIsAskedOnceTheReaderIsThere() async throws {
        try await install.setUp()
        try install.cache.invalidate(name: try storeID())
        let interaction = ScriptedInteraction(secrets: [Installation.passcode])
        let lookup = ReaderLookup.started {
            try? await Task.sleep(for: .milliseconds(50))
            return (Installation.reader([.finger(.rightIndex)]), nil)
        }
        let result = try await TouchVerification(context(lookup, interaction: interaction, cache: install.cache).environment).verifyTouch(finger: nil)
        #expect(result.finger == .rightIndex)
        #expect(interaction.prompts.count == 1)
    }

    @Test func aReaderProblemWithTheKeyCachedIsReportedAfterTheVaultOpens() async throws {
        try await install.setUp()
        let cache = CountingKeyCache(install.cache)
        let interaction = ScriptedInteraction(secrets: [Installation.passcode])
        let lookup = ReaderLookup.started { (nil, FingerprintError(.unplugged, "The reader was unplugged.")) }
        let error = await #expect(throws: AuthError.self) {
            _ = try await TouchVerification(context(lookup, interaction: interaction, cache: cache).environment).verifyTouch(finger: nil)
        }
        #expect(error?.unavailability == .unplugged)
        #expect(cache.loads.load(ordering: .sequentiallyConsistent) == 1)
        #expect(interaction.prompts.isEmpty)
        #expect(try install.attempts.read().failedTouches == 0)
    }

    @Test func noPasscodeSetIsReportedBeforeAMissingReader() async throws {
        let lookup = ReaderLookup.started { (nil, FingerprintError.noReader()) }
        let error = await #expect(throws: AuthError.self) {
            _ = try await TouchVerification(context(lookup, interaction: ScriptedInteraction(), cache: install.cache).environment).verifyTouch(
                finger: nil)
        }
        #expect(error?.code == .passcodeNotSet)
    }

    @Test func aDeferredLookupRunsOnceAndOnlyWhenFirstStartedOrAwaited() async throws {
        let runs = Atomic<Int>(0)
        let lookup = ReaderLookup.deferred {
            runs.add(1, ordering: .sequentiallyConsistent)
            return (Installation.reader([.finger(.rightIndex)]), nil)
        }
        try await Task.sleep(for: .milliseconds(50))
        #expect(runs.load(ordering: .sequentiallyConsistent) == 0)
        #expect(!lookup.isStarted)
        lookup.start()
        lookup.start()
        #expect(lookup.isStarted)
        #expect(await lookup.outcome().reader != nil)
        #expect(await lookup.outcome().reader != nil)
        #expect(runs.load(ordering: .sequentiallyConsistent) == 1)
        // Awaited without a start, it starts then.
        let awaited = ReaderLookup.deferred { (nil, FingerprintError.noReader()) }
        #expect(await awaited.outcome().problem?.code == .noReader)
    }

    /// A user-mode `verify` starts finding the reader before it reads the cached key, so libfprint's
    /// start overlaps the unlock. (Whether the lookup's task has begun running by then is up to the
    /// scheduler; that it was started is what the policy decides.)
    @Test func userModeVerifyStartsADeferredLookupBeforeTheCachedKeyIsRead() async throws {
        try await install.setUp()
        let lookup = ReaderLookup.deferred { (Installation.reader([.finger(.rightIndex)]), nil) }
        let cache = ObservingKeyCache(install.cache) { lookup.isStarted }
        let result = try await TouchVerification(context(lookup, interaction: ScriptedInteraction(), cache: cache).environment).verifyTouch(
            finger: nil)
        #expect(result.finger == .rightIndex)
        #expect(cache.heldAtEveryRead.withLock { $0 } == [true])
    }

    func storeID() throws -> String {
        try Vault.storeID(in: install.directory).uuidString
    }
}
