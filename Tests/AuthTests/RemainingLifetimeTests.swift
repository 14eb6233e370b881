import AuthCore
import Crypto
import FingerlockTestSupport
import Foundation
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
        // The kernel shows minutes here, rounded to its unit.
        #expect(left >= .seconds(540) && left <= .seconds(600), "\(left)")
        try cache.invalidate(name: "k")
        #expect(cache.remainingLifetime(name: "k") == nil)
    }
}
