import AuthCore
import FingerlockTestSupport
import Foundation
import Testing

/// The reuse-window rule both modes host (markers in the keyring in user mode, in the service's
/// memory in system mode; here in memory on a clock the test moves).
@Suite(.timed) struct ReuseWindowTests {
    let clock = TestClock()
    let markers: InMemoryKeyCache
    var window: ReuseWindow { ReuseWindow(markers: markers, now: clock.now) }

    init() { markers = InMemoryKeyCache(now: clock.now) }

    @Test func anUnlockOpensAWindowOfTheSettingThatEndsOnTime() {
        window.open(for: "v")
        #expect(window.left(for: "v", window: .seconds(60)) == .seconds(60))
        clock.advance(59.5)
        #expect(window.left(for: "v", window: .seconds(60)) == .milliseconds(500))
        clock.advance(1)
        #expect(!window.isOpen(for: "v", window: .seconds(60)))
        #expect(window.left(for: "v", window: .seconds(60)) == nil)
    }

    @Test func theSettingInForceNowDecidesAndZeroMeansNone() {
        window.open(for: "v")
        #expect(!window.isOpen(for: "v", window: .zero))
        clock.advance(40)
        // Shorter: over at once. Longer: still covers the unlock.
        #expect(!window.isOpen(for: "v", window: .seconds(30)))
        #expect(window.left(for: "v", window: .seconds(300)) == .seconds(260))
    }

    @Test func noWindowOutlivesTheLongestSetting() {
        window.open(for: "v")
        clock.advance(Double(ReuseWindow.longest.components.seconds) + 1)
        #expect(!window.isOpen(for: "v", window: ReuseWindow.longest))
    }

    @Test func aClockSetBackBeforeTheUnlockOpensNothing() {
        window.open(for: "v")
        clock.advance(-10)
        #expect(!window.isOpen(for: "v", window: .seconds(300)))
    }

    @Test func closingEndsOneVaultsWindowOrEveryOneWithAPrefix() {
        for name in ["1/a", "1/b", "2/a"] { window.open(for: name) }
        window.close(for: "1/a")
        #expect(!window.isOpen(for: "1/a", window: .seconds(60)))
        window.closeAll(withPrefix: "1/")
        #expect(!window.isOpen(for: "1/b", window: .seconds(60)))
        #expect(window.isOpen(for: "2/a", window: .seconds(60)))
    }
}
