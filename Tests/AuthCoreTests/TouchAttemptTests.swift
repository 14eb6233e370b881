import AuthCore
import FingerlockTestSupport
import Fingerprint
import Foundation
import Synchronization
import Testing

/// One touch under the failed-touch rule, on the real counter file: when it counts, and what a
/// lockout does to the held key (the same in both modes).
@Suite(.timed, .timeLimit(.minutes(1))) struct TouchAttemptTests {
    let scratch = ScratchDirectory()
    var store: FileAttemptStore { FileAttemptStore(dataDirectory: scratch.path) }
    /// How often the held key was forgotten.
    final class Forgotten: Sendable {
        let count = Mutex(0)
    }
    let forgotten = Forgotten()

    var attempt: TouchAttempt {
        let forgotten = self.forgotten
        return TouchAttempt(TouchLedger(store)) { forgotten.count.withLock { $0 += 1 } }
    }

    @Test func aNoMatchCountsAndAMatchClearsTheCount() async throws {
        let verdict = try await attempt.run { fingerRead in
            fingerRead()
            return .noMatch(note: nil)
        }
        #expect(verdict == .noMatch(failures: 1, note: nil))
        #expect(try store.read().failedTouches == 1)
        #expect(try await attempt.run { _ in .match(.leftThumb) } == .matched(.leftThumb))
        #expect(try store.read().failedTouches == 0)
    }

    @Test func aRetryOrLostPrintsAreNoTouch() async throws {
        #expect(
            try await attempt.run { fingerRead in
                fingerRead()
                return .retry(.tooShort)
            } == .retry(.tooShort))
        #expect(
            try await attempt.run { fingerRead in
                fingerRead()
                return .printsLost("gone")
            } == .printsLost("gone"))
        #expect(try store.read().failedTouches == 0)
    }

    @Test func aScanCancelledBeforeAFingerWasReadIsNoTouchAfterItCounts() async throws {
        await #expect(throws: CancellationError.self) {
            _ = try await attempt.run { _ in throw CancellationError() }
        }
        #expect(try store.read().failedTouches == 0)
        await #expect(throws: CancellationError.self) {
            _ = try await attempt.run { fingerRead in
                fingerRead()
                throw CancellationError()
            }
        }
        #expect(try store.read().failedTouches == 1)
    }

    @Test func theTouchThatReachesTheThresholdForgetsTheHeldKeyAndSoDoesEveryLockedOutCheck() async throws {
        try store.update { $0.failedTouches = TouchLedger.lockoutThreshold - 2 }
        _ = try await attempt.run { _ in .noMatch(note: nil) }
        #expect(forgotten.count.withLock { $0 } == 0)
        #expect(try !attempt.lockedOut())
        let verdict = try await attempt.run { _ in .noMatch(note: nil) }
        #expect(verdict == .noMatch(failures: TouchLedger.lockoutThreshold, note: nil))
        #expect(forgotten.count.withLock { $0 } == 1)
        #expect(try attempt.lockedOut())
        #expect(forgotten.count.withLock { $0 } == 2)
    }

    @Test func aScanCancelledAfterTheLastAllowedFingerStillForgetsTheKey() async throws {
        try store.update { $0.failedTouches = TouchLedger.lockoutThreshold - 1 }
        await #expect(throws: CancellationError.self) {
            _ = try await attempt.run { fingerRead in
                fingerRead()
                throw CancellationError()
            }
        }
        #expect(forgotten.count.withLock { $0 } == 1)
    }
}

/// Templates with a reader in this process, behind the finger seam.
@Suite(.timed, .timeLimit(.minutes(1))) struct TemplateFingerSourceTests {
    static let now: @Sendable () -> Date = { Date(timeIntervalSince1970: 1_800_000_000) }

    func enrolled(_ finger: Finger) async throws -> EnrolledPrint {
        let reader = SimulatedReader(touches: ScriptedTouchSource(Array(repeating: .finger(finger), count: 5)), now: Self.now)
        return try await reader.enroll(finger, username: "tester", timeout: .seconds(1)) { _ in }
    }

    @Test func aTouchNamesTheFingerThatMatchedAndReportsTheFingerRead() async throws {
        let prints = [try await enrolled(.leftThumb), try await enrolled(.rightIndex)]
        let reader = SimulatedReader(touches: ScriptedTouchSource([.finger(.rightIndex), .unknown]), now: Self.now)
        let source = TemplateFingerSource(prints, reader: reader)
        #expect(try await source.enrolledFingers().map(\.finger) == [.leftThumb, .rightIndex])
        #expect(try await source.candidates(nil) == CheckedFingers(fingers: [.leftThumb, .rightIndex], identifies: true))
        let read = Mutex(0)
        #expect(try await source.match(nil, timeout: .seconds(1)) { read.withLock { $0 += 1 } } == .match(.rightIndex))
        #expect(try await source.match(nil, timeout: .seconds(1)) { read.withLock { $0 += 1 } } == .noMatch(note: nil))
        #expect(read.withLock { $0 } == 2)
    }

    @Test func aFingerNotEnrolledOrAnotherReadersPrintsAreNothingToCheck() async throws {
        let prints = [try await enrolled(.leftThumb)]
        let source = TemplateFingerSource(prints, reader: SimulatedReader(touches: ScriptedTouchSource([]), now: Self.now))
        await #expect(throws: MatchCandidates.Problem.fingerNotEnrolled(.rightIndex, SimulatedReaderIdentity.identity)) {
            _ = try await source.candidates(.rightIndex)
        }
        var foreign = prints[0]
        foreign.reader = ReaderIdentity(driver: "goodixmoc", deviceID: "1")
        let none = TemplateFingerSource([foreign], reader: SimulatedReader(touches: ScriptedTouchSource([]), now: Self.now))
        await #expect(throws: MatchCandidates.Problem.noneEnrolled(SimulatedReaderIdentity.identity)) {
            _ = try await none.match(nil, timeout: .seconds(1)) {}
        }
    }
}
