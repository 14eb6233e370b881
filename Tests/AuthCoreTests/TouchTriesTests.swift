import AuthCore
import FingerlockTestSupport
import Fingerprint
import Testing

/// The tries of one unlock, the state machine both modes drive.
@Suite(.timed) struct TouchTriesTests {
    @Test func aMatchUnlocksWithTheFingerItNamedOrNone() {
        var tries = TouchTries(tries: 3)
        #expect(tries.next(after: .matched(.rightIndex)) == .unlocked(.rightIndex))
        var anyFinger = TouchTries(tries: 3)
        #expect(anyFinger.next(after: .matched(nil)) == .unlocked(nil))
    }

    @Test func noMatchesScanAgainUntilTheTriesRunOut() {
        var tries = TouchTries(tries: 3)
        #expect(tries.next(after: .noMatch(failures: 1, note: nil)) == .scanAgain(notice: "No match. Try again."))
        #expect(tries.next(after: .noMatch(failures: 2, note: nil)) == .scanAgain(notice: "No match. Try again."))
        #expect(tries.next(after: .noMatch(failures: 3, note: nil)) == .fail(.noMatch("No match after 3 tries.")))
        var once = TouchTries(tries: 1)
        #expect(once.next(after: .noMatch(failures: 1, note: nil)) == .fail(.noMatch("No match.")))
    }

    @Test func theTouchThatReachesTheThresholdEndsTheUnlockWhateverTriesAreLeft() {
        var tries = TouchTries(tries: 10)
        let next = tries.next(after: .noMatch(failures: TouchLedger.lockoutThreshold, note: nil))
        guard case .fail(.lockedOut(let message)) = next else {
            Issue.record("expected a lockout, got \(next)")
            return
        }
        #expect(message.hasPrefix("No match. That was the 5th failed touch in a row"))
        #expect(message.contains("the key is forgotten"))
    }

    @Test func retryHintsAreShownAndDoNotUseATryButAreCapped() {
        var tries = TouchTries(tries: 1)
        for _ in 1...TouchTries.maximumRetryHints {
            #expect(tries.next(after: .retry(.centerFinger)) == .scanAgain(notice: RetryReason.centerFinger.hint))
        }
        #expect(
            tries.next(after: .retry(.tooShort))
                == .fail(.unreadable("The reader could not read the finger: \(RetryReason.tooShort.hint)")))
    }

    @Test func lostPrintsAreSaidWithEveryLaterNoMatchAndAllLostEndsTheUnlock() {
        var tries = TouchTries(tries: 2)
        #expect(tries.next(after: .noMatch(failures: 1, note: "Gone.")) == .scanAgain(notice: "No match. Gone. Try again."))
        #expect(tries.next(after: .noMatch(failures: 2, note: nil)) == .fail(.noMatch("No match after 2 tries. Gone.")))
        var allLost = TouchTries(tries: 3)
        #expect(allLost.next(after: .printsLost("All gone.")) == .fail(.printsLost("All gone.")))
    }
}
