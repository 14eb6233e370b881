import AuthCore
import FingerlockTestSupport
import Foundation
import Testing

/// The wrong-passcode rule both modes host: count first, delays, success, attempts nothing judged.
@Suite(.timed) struct PasscodeLedgerTests {
    let scratch = ScratchDirectory()
    let clock = TestClock()
    var store: FileAttemptStore { FileAttemptStore(dataDirectory: scratch.path) }
    var ledger: PasscodeLedger { PasscodeLedger(store, now: clock.now) }

    @Test func fourWrongPasscodesCostNothingTheFifthStartsTheDelays() throws {
        for failures in 1...4 {
            let attempt = try ledger.checkDelayAndCount()
            #expect(attempt.failures == failures)
            #expect(attempt.delayIfWrong == .zero)
        }
        #expect(try ledger.delayLeft() == nil)
        // Judged wrong, its run over: no longer in flight.
        #expect(try ledger.checkDelayAndCount().delayIfWrong == .seconds(60))
        #expect(try ledger.delayLeft() == PasscodeDelay(try store.read(), now: clock.now()))
        #expect(try ledger.delayLeft()?.left == .seconds(60))
    }

    @Test func anAttemptDuringADelayIsRefusedAndNotCounted() throws {
        for _ in 1...5 { _ = try ledger.checkDelayAndCount() }
        clock.advance(20)
        let refusal = #expect(throws: PasscodeDelay.self) { try ledger.checkDelayAndCount() }
        #expect(refusal?.left == .seconds(40) && refusal?.failures == 5)
        #expect(try store.read().failedPasscodes == 5)
        // Once the delay has run, the sixth counts and earns 5 minutes.
        clock.advance(41)
        #expect(try ledger.checkDelayAndCount().delayIfWrong == .seconds(300))
    }

    @Test(arguments: [(5, 60), (6, 300), (7, 900), (8, 900), (9, 3600), (30, 3600)])
    func theDelayLadder(failures: Int, seconds: Int64) {
        #expect(PasscodeDelays.delay(afterFailures: failures) == .seconds(seconds))
    }

    @Test func aRightPasscodeClearsEveryCounterTouchesToo() throws {
        try store.update { $0 = AttemptState(failedTouches: 5, failedPasscodes: 6, lastPasscodeFailure: clock.now()) }
        clock.advance(301)
        _ = try ledger.checkDelayAndCount()
        try ledger.succeeded()
        #expect(try store.read() == AttemptState())
    }

    @Test func anAttemptNothingJudgedIsTakenBackWithItsTime() throws {
        let first = try ledger.checkDelayAndCount()
        clock.advance(5)
        let second = try ledger.checkDelayAndCount()
        ledger.notJudged(second)
        let state = try store.read()
        #expect(state.failedPasscodes == 1)
        #expect(state.lastPasscodeFailure == first.countedAt)
    }

    /// The file keeps milliseconds; a clock that does not tick in whole seconds must still find
    /// its own failure to take back (else a damaged vault restarted a running delay).
    @Test func anAttemptTakenBackOnAFineGrainedClockRestoresTheFailureBefore() throws {
        for _ in 1...5 { _ = try ledger.checkDelayAndCount() }
        let before = try store.read().lastPasscodeFailure
        clock.advance(61.2345678)
        let attempt = try ledger.checkDelayAndCount()
        ledger.notJudged(attempt)
        let state = try store.read()
        #expect(state.failedPasscodes == 5)
        #expect(state.lastPasscodeFailure == before)
    }

    @Test func takingBackKeepsAFailureAnotherRunCountedSince() throws {
        let mine = try ledger.checkDelayAndCount()
        clock.advance(1)
        let theirs = try ledger.checkDelayAndCount()
        ledger.notJudged(mine)
        let state = try store.read()
        #expect(state.failedPasscodes == 1)
        #expect(state.lastPasscodeFailure == theirs.countedAt)
    }

    @Test func carriedCountsOnlyRaiseAndStartTheirDelayNow() throws {
        try ledger.raise(to: 5)
        #expect(try ledger.delayLeft()?.left == .seconds(60))
        try ledger.raise(to: 2)
        #expect(try store.read().failedPasscodes == 5)
    }
}
