import AuthCore
import Crypto
import FingerlockTestSupport
import Foundation
import Synchronization
import Testing

@testable import Auth

/// How long a cached key has left, for `status`: exact in memory, as `/proc/keys` shows it in the
/// kernel keyring.
@Suite(.timed) struct RemainingLifetimeTests {
    @Test func inMemoryCountsDownOnTheInjectedClock() throws {
        let clock = TestClock()
        let cache = InMemoryKeyCache(now: clock.now)
        #expect(cache.remainingLifetime(name: "k") == nil)
        try cache.store(SymmetricKey(size: .bits256), name: "k", lifetime: .seconds(90))
        #expect(cache.remainingLifetime(name: "k") == .seconds(90))
        clock.advance(30.5)
        #expect(cache.remainingLifetime(name: "k") == .seconds(59))
        clock.advance(60)
        #expect(cache.remainingLifetime(name: "k") == nil)
    }

    static let columns: [(String, Int64?)] = [
        ("45s", 45), ("59m", 59 * 60), ("7h", 7 * 3600), ("2d", 2 * 86400), ("3w", 3 * 604_800),
        ("perm", nil), ("expd", nil), ("", nil), ("5x", nil),
    ]

    @Test("the /proc/keys expiry column", arguments: columns)
    func procColumn(_ text: String, _ seconds: Int64?) {
        #expect(KernelKeyringCache.duration(proc: Substring(text)) == seconds.map { .seconds($0) })
    }

    @Test func kernelKeyringTellsAStoredKeysTimeAndNothingOnceItIsGone() throws {
        let cache = KernelKeyringCache(prefix: "fingerlock-test-\(UUID().uuidString)")
        try #require(cache.unavailableReason() == nil, "this test needs a usable kernel keyring")
        defer { _ = try? cache.invalidateAll() }
        try cache.store(SymmetricKey(size: .bits256), name: "k", lifetime: .seconds(600))
        let left = try #require(cache.remainingLifetime(name: "k"))
        #expect(left >= .seconds(598) && left <= .seconds(600), "\(left)")
        try cache.invalidate(name: "k")
        #expect(cache.remainingLifetime(name: "k") == nil)
    }

    /// Right after an 8 h unlock, 8 h are left, not the "7h" /proc/keys rounds down to: the cache
    /// keeps the expiry with the key, and the key reads back as it was.
    @Test func theExpiryIsKeptToTheSecondAndTheKeyReadsBackWhole() throws {
        let clock = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        let cache = KernelKeyringCache(prefix: "fingerlock-test-\(UUID().uuidString)", now: { clock.withLock { $0 } })
        try #require(cache.unavailableReason() == nil, "this test needs a usable kernel keyring")
        defer { _ = try? cache.invalidateAll() }
        let key = SymmetricKey(size: .bits256)
        try cache.store(key, name: "k", lifetime: .seconds(8 * 3600))
        #expect(cache.remainingLifetime(name: "k") == .seconds(8 * 3600))
        clock.withLock { $0 += 61 }
        #expect(cache.remainingLifetime(name: "k") == .seconds(8 * 3600 - 61))
        #expect(try cache.load(name: "k") == key)
        // An entry cached without the trailer (an earlier version) is the key alone.
        let plain: [UInt8] = Array(repeating: 7, count: 32)
        #expect(plain.withUnsafeBytes { ExpiryTrailer(payload: $0) } == nil)
        #expect(plain.withUnsafeBytes { ExpiryTrailer.keyLength(of: $0) } == 32)
        let trailed = plain + ExpiryTrailer(expires: 1_800_028_800).bytes
        #expect(trailed.withUnsafeBytes { ExpiryTrailer(payload: $0) } == ExpiryTrailer(expires: 1_800_028_800))
        #expect(trailed.withUnsafeBytes { ExpiryTrailer.keyLength(of: $0) } == 32)
    }
}
