import AuthCore
import Crypto
import FingerlockTestSupport
import Foundation
import Testing

@Suite(.timed) struct InMemoryKeyCacheTests {
    @Test func keysExpireOnTheInjectedClock() throws {
        let clock = TestClock()
        let cache = InMemoryKeyCache(now: clock.now)
        let key = SymmetricKey(size: .bits256)
        try cache.store(key, name: "store", lifetime: .seconds(60))
        clock.advance(59)
        #expect(try cache.load(name: "store").map(bytes) == bytes(key))
        clock.advance(2)
        #expect(try cache.load(name: "store") == nil)
    }

    @Test func invalidateForgetsAndUnavailableCachesSayWhy() throws {
        let cache = InMemoryKeyCache(now: Date.init)
        try cache.store(SymmetricKey(size: .bits256), name: "a", lifetime: .seconds(60))
        #expect(try cache.invalidate(name: "a"))
        #expect(try !cache.invalidate(name: "a"))
        let broken = InMemoryKeyCache(now: Date.init, unavailableReason: "no keyring here")
        #expect(broken.unavailableReason() == "no keyring here")
        #expect(throws: KeyCacheError("no keyring here")) { try broken.load(name: "a") }
    }
}
