import AuthCore
import Crypto
import FingerlockTestSupport
import Foundation
import Testing

@testable import FingerlockService

/// fingerlockd's per-vault memory: a key and its reuse window change together, one user's `lock`
/// touches no one else's vaults, and the expiry timer ends only when no key is left.
@Suite(.timed) struct VaultSessionsTests {
    let clock = TestClock()
    var sessions: VaultSessions {
        let clock = clock
        return VaultSessions(keys: InMemoryKeyCache(now: clock.now), now: clock.now)
    }

    @Test func forgettingAKeyClosesItsReuseWindowInTheSameStep() throws {
        let sessions = sessions
        let key = SymmetricKey(size: .bits256)
        #expect(try sessions.keep(key, name: "1000/a", lifetime: .seconds(600)))
        #expect(try sessions.keyWithinReuseWindow(name: "1000/a", window: .seconds(60)) == key)
        #expect(try sessions.forget(name: "1000/a"))
        #expect(try sessions.keyWithinReuseWindow(name: "1000/a", window: .seconds(60)) == nil)
        // A key kept again (the passcode) opens a window of its own; the old one does not come back.
        clock.advance(30)
        _ = try sessions.keep(key, name: "1000/a", lifetime: .seconds(600))
        #expect(sessions.state(name: "1000/a", window: .seconds(60)).reuseLeft == .seconds(60))
    }

    @Test func aUsersLockLeavesOtherUsersVaultsOpen() throws {
        let sessions = sessions
        let key = SymmetricKey(size: .bits256)
        _ = try sessions.keep(key, name: "1000/a", lifetime: .seconds(600))
        _ = try sessions.keep(key, name: "1000/b", lifetime: .seconds(600))
        _ = try sessions.keep(key, name: "1001/a", lifetime: .seconds(600))
        #expect(try sessions.forgetAll(withPrefix: "1000/") == 2)
        #expect(try sessions.key(name: "1000/a") == nil && sessions.key(name: "1000/b") == nil)
        #expect(try sessions.keyWithinReuseWindow(name: "1001/a", window: .seconds(60)) == key)
        #expect(sessions.forgetAll() == 1)
        #expect(sessions.state(name: "1001/a", window: .seconds(60)) == (nil, nil))
    }

    @Test func theExpiryTimerEndsOnlyWhenNoKeyIsLeft() throws {
        let sessions = sessions
        let key = SymmetricKey(size: .bits256)
        #expect(try sessions.keep(key, name: "1000/a", lifetime: .seconds(10)))
        // Kept again while its timer runs: no second timer.
        #expect(try !sessions.keep(key, name: "1000/a", lifetime: .seconds(10)))
        #expect(!sessions.expire(name: "1000/a"))
        clock.advance(11)
        #expect(sessions.remainingLifetime(name: "1000/a") == nil)
        #expect(sessions.expire(name: "1000/a"))
        #expect(sessions.namesWithExpiryTimer.isEmpty)
        #expect(try sessions.key(name: "1000/a") == nil)
        // The next key needs a timer again.
        #expect(try sessions.keep(key, name: "1000/a", lifetime: .seconds(10)))
    }

    @Test func aTouchOpensTheWindowOnlyForAKeyStillHeld() throws {
        let sessions = sessions
        #expect(try sessions.keyAfterTouch(name: "1000/a") == nil)
        #expect(sessions.state(name: "1000/a", window: .seconds(60)).reuseLeft == nil)
        let key = SymmetricKey(size: .bits256)
        _ = try sessions.keep(key, name: "1000/a", lifetime: .seconds(600))
        clock.advance(50)
        #expect(sessions.state(name: "1000/a", window: .seconds(60)).reuseLeft == .seconds(10))
        #expect(try sessions.keyAfterTouch(name: "1000/a") == key)
        #expect(sessions.state(name: "1000/a", window: .seconds(60)).reuseLeft == .seconds(60))
    }
}
