public import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// The wrong-passcode rule, hosted by both modes: the delay is checked and the attempt counted in
/// one step under the counters' lock, before the passcode is tried (parallel runs waiting at their
/// prompts cannot all slip past one check, and a killed process cannot skip a failure); a correct
/// passcode clears every counter, touches included; an attempt that nothing judged (the vault or
/// the service's state could not be read) is taken back, so damage never locks its owner out.
///
/// An attempt counts as wrong until it is judged, but one still in flight — its run alive, checking
/// it — is no wrong passcode yet: a concurrent attempt that the count would refuse waits for the
/// results instead (a right one clears the count), and is refused only if they all turn out wrong or
/// their runs die without one. A guesser gains nothing by running attempts side by side: one still
/// starts only when the count, with every attempt in flight in it as a wrong one, allows it — the
/// very count and delays of attempts made one after another — and at most `maximumInFlight` are in
/// flight at once.
public struct PasscodeLedger: Sendable {
    /// What the ladder lets through before its first delay: no more could ever start together from
    /// a clean count, and a right passcode clearing the count must not let another burst start
    /// beside the attempts still in flight.
    public static let maximumInFlight = 5

    let attempts: any AttemptStore
    let now: @Sendable () -> Date
    /// How long an attempt waits for attempts in flight: each takes about a second (scrypt), longer
    /// only while it waits for the vault's own locks.
    let patience: Duration

    public init(_ attempts: any AttemptStore, now: @escaping @Sendable () -> Date, patience: Duration = .seconds(30)) {
        self.attempts = attempts
        self.now = now
        self.patience = patience
    }

    /// One attempt, counted as wrong until it is judged. Keep it alive until then
    /// (`withExtendedLifetime`): dropped, it is no longer in flight, and concurrent attempts take it
    /// for the wrong passcode it may not be.
    public struct Attempt: Sendable {
        /// Wrong passcodes in a row with this one in.
        public var failures: Int
        /// When it was counted.
        public var countedAt: Date
        /// The last failure before this one, put back if it is taken back.
        var failureBefore: Date?
        /// Shows the attempt in flight to concurrent checks while it lives.
        let hold: PasscodeHold

        /// The delay a wrong answer to this attempt earns.
        public var delayIfWrong: Duration { PasscodeDelays.delay(afterFailures: failures) }
    }

    /// The delay still running, or nil when an attempt may be made now — or may be once the attempts
    /// in flight are judged (the attempt's own check waits for them).
    public func delayLeft() throws -> PasscodeDelay? {
        // `update` for its lock, so the count and the attempts in flight are read together; nothing
        // changes, so nothing is written.
        try attempts.update { state -> PasscodeDelay? in
            guard let delay = PasscodeDelay(state, now: now()) else { return nil }
            return try attempts.passcodesInFlight(capacity: Self.maximumInFlight) > 0 ? nil : delay
        }
    }

    /// Refuses while a delay runs, else counts the attempt as wrong; both in one locked step. A delay
    /// that attempts in flight may yet lift, or a full set of attempts in flight, is waited out
    /// instead, for at most `patience`; `waiting` hears once how many attempts it waits for.
    public func checkDelayAndCount(waiting: (Int) -> Void = { _ in }) throws -> Attempt {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: patience)
        var told = false
        var pause: UInt32 = 5_000
        while true {
            switch try attempts.update({ try admit(&$0) }) {
            case .admitted(let attempt):
                return attempt
            case .waitFor(let inFlight, let failures):
                guard clock.now < deadline else {
                    throw PasscodesStillInFlight(inFlight: inFlight, failures: failures, waited: patience)
                }
                if !told { waiting(inFlight) }
                told = true
                // Polled, like the counters' own lock: a result comes within about a second.
                usleep(pause)
                pause = min(pause * 2, 100_000)
            }
        }
    }

    private enum Admission {
        case admitted(Attempt)
        case waitFor(inFlight: Int, failures: Int)
    }

    /// One check of `checkDelayAndCount`, under the counters' lock.
    private func admit(_ state: inout AttemptState) throws -> Admission {
        // To the millisecond, as the counter file keeps it: `notJudged` finds its own failure by
        // this time, and a time the file rounded would never be found.
        let now = Date(timeIntervalSince1970: Double(Int64((now().timeIntervalSince1970 * 1000).rounded())) / 1000)
        if let delay = PasscodeDelay(state, now: now) {
            // The count behind the delay holds the attempts in flight, and a right one clears it:
            // their results decide, so they are waited for. Without any, the delay is certain.
            let inFlight = try attempts.passcodesInFlight(capacity: Self.maximumInFlight)
            guard inFlight > 0 else { throw delay }
            return .waitFor(inFlight: inFlight, failures: state.failedPasscodes)
        }
        guard let hold = try attempts.holdPasscodeInFlight(capacity: Self.maximumInFlight) else {
            return .waitFor(inFlight: Self.maximumInFlight, failures: state.failedPasscodes)
        }
        let before = state.lastPasscodeFailure
        state.failedPasscodes += 1
        state.lastPasscodeFailure = now
        return .admitted(Attempt(failures: state.failedPasscodes, countedAt: now, failureBefore: before, hold: hold))
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
