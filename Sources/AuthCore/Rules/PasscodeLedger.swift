public import Foundation

/// The wrong-passcode rule, hosted by both modes: the delay is checked and the attempt counted in
/// one step under the counters' lock, before the passcode is tried (parallel runs waiting at their
/// prompts cannot all slip past one check, and a killed process cannot skip a failure); a correct
/// passcode clears every counter, touches included; an attempt that nothing judged (the vault or
/// the service's state could not be read) is taken back, so damage never locks its owner out.
public struct PasscodeLedger: Sendable {
    let attempts: any AttemptStore
    let now: @Sendable () -> Date

    public init(_ attempts: any AttemptStore, now: @escaping @Sendable () -> Date) {
        self.attempts = attempts
        self.now = now
    }

    /// One attempt, counted as wrong until it is judged.
    public struct Attempt: Sendable, Equatable {
        /// Wrong passcodes in a row with this one in.
        public var failures: Int
        /// When it was counted.
        public var countedAt: Date
        /// The last failure before this one, put back if it is taken back.
        var failureBefore: Date?

        /// The delay a wrong answer to this attempt earns.
        public var delayIfWrong: Duration { PasscodeDelays.delay(afterFailures: failures) }
    }

    /// The delay still running, or nil when an attempt may be made now.
    public func delayLeft() throws -> PasscodeDelay? {
        PasscodeDelay(try attempts.read(), now: now())
    }

    /// Refuses while a delay runs, else counts the attempt as wrong; both in one locked step.
    public func checkDelayAndCount() throws -> Attempt {
        // To the millisecond, as the counter file keeps it: `notJudged` finds its own failure by
        // this time, and a time the file rounded would never be found.
        let now = Date(timeIntervalSince1970: Double(Int64((now().timeIntervalSince1970 * 1000).rounded())) / 1000)
        return try attempts.update { state throws -> Attempt in
            if let delay = PasscodeDelay(state, now: now) { throw delay }
            let before = state.lastPasscodeFailure
            state.failedPasscodes += 1
            state.lastPasscodeFailure = now
            return Attempt(failures: state.failedPasscodes, countedAt: now, failureBefore: before)
        }
    }

    /// The passcode (or recovery key) was right: every counter starts again, the touches' too.
    public func succeeded() throws {
        try attempts.update { $0 = AttemptState() }
    }

    /// Takes `attempt` back: nothing judged it. Best effort — a count that cannot be taken back
    /// stays, which errs on the safe side.
    public func notJudged(_ attempt: Attempt) {
        try? attempts.update {
            if $0.failedPasscodes > 0 { $0.failedPasscodes -= 1 }
            // Unless another run has counted a failure since.
            if $0.lastPasscodeFailure == attempt.countedAt { $0.lastPasscodeFailure = attempt.failureBefore }
        }
    }

    /// Counts kept elsewhere only ever raise this count; the delay they earn starts now (when they
    /// were counted is not known).
    public func raise(to carried: Int) throws {
        let now = now()
        try attempts.update { state in
            guard carried > state.failedPasscodes else { return }
            state.failedPasscodes = carried
            state.lastPasscodeFailure = now
        }
    }
}

/// A passcode delay still running: thrown by `PasscodeLedger.checkDelayAndCount()`.
public struct PasscodeDelay: Error, Equatable, Sendable {
    public var left: Duration
    /// Wrong passcodes in a row so far.
    public var failures: Int

    public init?(_ state: AttemptState, now: Date) {
        guard let left = PasscodeDelays.remaining(in: state, now: now) else { return nil }
        self.left = left
        failures = state.failedPasscodes
    }
}
