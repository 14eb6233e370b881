import AuthCore
import FingerlockTestSupport
import Foundation
import Synchronization
import Testing

/// Attempts in flight (issue 27): one still being checked is no wrong passcode for an attempt made
/// beside it, which waits for its result; one that ends without a result is a wrong one; a guesser
/// running attempts side by side gets no more than the ladder gives one at a time.
@Suite(.timed) struct PasscodesInFlightTests {
    let scratch = ScratchDirectory()
    let clock = TestClock()
    var store: FileAttemptStore { FileAttemptStore(dataDirectory: scratch.path) }

    func ledger(patience: Duration = .seconds(20)) -> PasscodeLedger {
        PasscodeLedger(store, now: clock.now, patience: patience)
    }

    /// What an attempt made beside others heard while it waited.
    final class Waiting: Sendable {
        let inFlight = Mutex<Int?>(nil)
        var heard: Int? { inFlight.withLock { $0 } }
    }

    /// `checkDelayAndCount` on a thread of its own, as another run makes it (it blocks while it
    /// waits).
    func attemptBeside(_ ledger: PasscodeLedger, _ waiting: Waiting) -> Task<Result<PasscodeLedger.Attempt, any Error>, Never> {
        Task {
            await withCheckedContinuation { continuation in
                Thread.detachNewThread {
                    continuation.resume(
                        returning: Result { try ledger.checkDelayAndCount { count in waiting.inFlight.withLock { $0 = count } } })
                }
            }
        }
    }

    func until(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now.advanced(by: .seconds(20))
        while !condition() && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(condition())
    }

    @Test func anAttemptInFlightIsNoWrongPasscodeForOneMadeBesideIt() async throws {
        let ledger = ledger()
        // Five runs checking their passcodes: counted, as ever, before their results.
        var inFlight = try (1...5).map { _ in try ledger.checkDelayAndCount() }
        #expect(try store.read().failedPasscodes == 5)
        // A sixth is not refused at its prompt, and waits for their results.
        #expect(try ledger.delayLeft() == nil)
        let waiting = Waiting()
        let sixth = attemptBeside(ledger, waiting)
        try await until { waiting.heard == 5 }
        // The first one's passcode was right: the count starts again and its run ends.
        try ledger.succeeded()
        inFlight.removeFirst()
        let attempt = try await sixth.value.get()
        #expect(attempt.failures == 1)
        #expect(attempt.delayIfWrong == .zero)
        withExtendedLifetime(inFlight) {}
    }

    @Test func anAttemptWaitingForOthersIsRefusedWhenTheyEndWithoutARightPasscode() async throws {
        let ledger = ledger()
        var inFlight = try (1...5).map { _ in try ledger.checkDelayAndCount() }
        let waiting = Waiting()
        let sixth = attemptBeside(ledger, waiting)
        try await until { waiting.heard == 5 }
        // Their runs end (wrong passcodes, or killed): the holds go, the counts stay.
        inFlight.removeAll()
        let result = await sixth.value
        let refusal = #expect(throws: PasscodeDelay.self) { try result.get() }
        #expect(refusal?.failures == 5 && refusal?.left == .seconds(60))
        #expect(try store.read().failedPasscodes == 5)
        #expect(try ledger.delayLeft()?.left == .seconds(60))
    }

    @Test func aGuesserRunningAttemptsSideBySideGetsNoMoreThanTheLadderGives() throws {
        let ledger = ledger(patience: .milliseconds(200))
        var inFlight = try (1...5).map { _ in try ledger.checkDelayAndCount() }
        // The sixth guess waits for the five, and gives up uncounted when they take too long.
        let gaveUp = #expect(throws: PasscodesStillInFlight.self) { try ledger.checkDelayAndCount() }
        #expect(gaveUp?.inFlight == 5 && gaveUp?.failures == 5)
        #expect(gaveUp?.message.hasPrefix("5 other passcode attempts were still being checked after ") == true)
        #expect(try store.read().failedPasscodes == 5)
        // All five wrong: the sixth meets the ladder's first delay, as it would one at a time.
        inFlight.removeAll()
        let refusal = #expect(throws: PasscodeDelay.self) { try ledger.checkDelayAndCount() }
        #expect(refusal?.failures == 5 && refusal?.left == .seconds(60))
        clock.advance(60)
        #expect(try ledger.checkDelayAndCount().delayIfWrong == .seconds(300))
    }

    @Test func aRightPasscodeMidBurstLetsNoMoreThanFiveIntoFlight() throws {
        let ledger = ledger(patience: .milliseconds(200))
        var inFlight = try (1...PasscodeLedger.maximumInFlight).map { _ in try ledger.checkDelayAndCount() }
        try ledger.succeeded()
        #expect(try store.read().failedPasscodes == 0)
        let gaveUp = #expect(throws: PasscodesStillInFlight.self) { try ledger.checkDelayAndCount() }
        #expect(gaveUp?.inFlight == 5 && gaveUp?.failures == 0)
        #expect(try store.read().failedPasscodes == 0)
        // One of them ends: its place is free.
        inFlight.removeFirst()
        #expect(try ledger.checkDelayAndCount().failures == 1)
        withExtendedLifetime(inFlight) {}
    }

    @Test func theCapIsWhatTheLadderLetsThroughBeforeItsFirstDelay() {
        #expect(PasscodeDelays.delay(afterFailures: PasscodeLedger.maximumInFlight - 1) == .zero)
        #expect(PasscodeDelays.delay(afterFailures: PasscodeLedger.maximumInFlight) > .zero)
    }

    /// Older versions read the record, and know nothing of attempts in flight: it says what it
    /// always said, every attempt counted until it is judged.
    @Test func attemptsInFlightLeaveTheRecordAsOlderVersionsReadIt() throws {
        let ledger = ledger()
        let inFlight = try (1...2).map { _ in try ledger.checkDelayAndCount() }
        let record = try String(contentsOfFile: scratch.path + "/attempts", encoding: .utf8)
        let milliseconds = Int64(clock.now().timeIntervalSince1970 * 1000)
        #expect(
            record.trimmingCharacters(in: .whitespacesAndNewlines)
                == "fingerlock-attempts 1 touches=0 passcodes=2 last-passcode-failure=\(milliseconds)")
        #expect(record.utf8.count == 96)
        let locks = try FileManager.default.attributesOfItem(atPath: scratch.path + "/attempts-in-flight")
        #expect(locks[.size] as? Int == 0)
        #expect((locks[.posixPermissions] as? Int).map { $0 & 0o777 } == 0o600)
        withExtendedLifetime(inFlight) {}
    }

    /// Counters kept in memory (fingerlockd's tests) hold no attempts in flight: a delay is
    /// refused at once, as before there were any.
    @Test func aStoreWithoutAttemptsInFlightRefusesADelayAtOnce() throws {
        let memory = MemoryAttempts()
        let ledger = PasscodeLedger(memory, now: clock.now, patience: .seconds(20))
        let inFlight = try (1...5).map { _ in try ledger.checkDelayAndCount() }
        let started = ContinuousClock.now
        let refusal = #expect(throws: PasscodeDelay.self) { try ledger.checkDelayAndCount() }
        #expect(refusal?.failures == 5)
        #expect(ContinuousClock.now - started < .seconds(5))
        withExtendedLifetime(inFlight) {}
    }
}

/// Attempt counters in memory.
private final class MemoryAttempts: AttemptStore {
    private let state = Mutex(AttemptState())
    func read() throws -> AttemptState { state.withLock { $0 } }
    func update<T>(_ body: (inout AttemptState) throws -> T) throws -> T { try state.withLock { try body(&$0) } }
}
