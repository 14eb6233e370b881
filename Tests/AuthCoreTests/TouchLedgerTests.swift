import AuthCore
import FingerlockTestSupport
import Foundation
import Testing

/// The failed-touch rule both modes host, on the real counter file.
@Suite(.timed) struct TouchLedgerTests {
    let scratch = ScratchDirectory()
    var store: FileAttemptStore { FileAttemptStore(dataDirectory: scratch.path) }

    @Test func theLockoutThresholdIsFiveTouchesInARow() throws {
        // The number the README and both modes promise; a change here is a change of the contract.
        #expect(TouchLedger.lockoutThreshold == 5)
        let ledger = TouchLedger(store)
        for failures in 1...4 {
            #expect(try ledger.count() == failures)
            #expect(try !ledger.isLockedOut())
            #expect(TouchLedger.touchesLeft(after: failures) == 5 - failures)
        }
        #expect(try ledger.count() == 5)
        #expect(try ledger.isLockedOut())
        #expect(TouchLedger.touchesLeft(after: 7) == 0)
    }

    @Test func aTouchIsCountedBeforeItsResultAndTakenBackWhenItWasNone() throws {
        let ledger = TouchLedger(store)
        try ledger.count()
        // Another instance (another process) sees the count at once: a killed run cannot skip it.
        #expect(try store.read().failedTouches == 1)
        try ledger.undo()
        #expect(try store.read().failedTouches == 0)
        // Never below zero.
        try ledger.undo()
        #expect(try store.read().failedTouches == 0)
    }

    @Test func aMatchClearsTheCountButNotThePasscodeCounters() throws {
        try store.update { $0 = AttemptState(failedTouches: 4, failedPasscodes: 2, lastPasscodeFailure: Date()) }
        try TouchLedger(store).matched()
        let state = try store.read()
        #expect(state.failedTouches == 0 && state.failedPasscodes == 2 && state.lastPasscodeFailure != nil)
    }

    @Test func carriedCountsOnlyRaise() throws {
        let ledger = TouchLedger(store)
        try ledger.count()
        try ledger.count()
        #expect(try !ledger.raise(to: 1))
        #expect(try store.read().failedTouches == 2)
        #expect(try ledger.raise(to: 5))
        #expect(try store.read().failedTouches == 5)
    }
}
