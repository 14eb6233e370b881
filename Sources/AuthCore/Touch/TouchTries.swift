public import Fingerprint

/// The tries of one unlock, written once for both modes: after each touch's verdict, whether to scan
/// again (and what to tell the user first) or how the unlock ends. A state machine that returns
/// what to do, so each host drives it with its own scans and prompts.
public struct TouchTries: Sendable {
    /// Retry hints ("center your finger") shown in one unlock before giving up: a reader that keeps
    /// asking never keeps the user at the prompt forever.
    public static let maximumRetryHints = 10

    public let tries: Int
    private var noMatches = 0
    private var hints = 0
    /// What each later no-match message adds: prints the reader turned out to have lost, or the one
    /// finger fprintd checked.
    private var lost = ""

    /// - Parameter tries: no-matches allowed before the unlock fails (the vault's `max-tries`; 1 for `verify`).
    public init(tries: Int) {
        self.tries = max(1, tries)
    }

    public enum Next: Sendable, Equatable {
        /// Unlocked by `finger` (nil: the source does not say which).
        case unlocked(Finger?)
        /// Tell the user `notice`, then scan again.
        case scanAgain(notice: String)
        /// The unlock failed.
        case fail(TouchFailure)
    }

    /// How an unlock by touch failed; each says it in one line.
    public enum TouchFailure: Sendable, Equatable {
        /// No match in the tries allowed.
        case noMatch(String)
        /// That no-match was the last allowed in a row: the key is forgotten.
        case lockedOut(String)
        /// The reader kept asking for another touch.
        case unreadable(String)
        /// The reader lost every print the touch was checked against.
        case printsLost(String)

        public var message: String {
            switch self {
            case .noMatch(let text), .lockedOut(let text), .unreadable(let text), .printsLost(let text): text
            }
        }
    }

    public mutating func next(after verdict: TouchVerdict) -> Next {
        switch verdict {
        case .matched(let finger):
            return .unlocked(finger)
        case .noMatch(let failures, let lostNow):
            if let lostNow { lost = " " + lostNow }
            noMatches += 1
            if failures >= TouchLedger.lockoutThreshold {
                return .fail(
                    .lockedOut(
                        "No match. That was the \(TouchLedger.lockoutThreshold)th failed touch in a row: the key is forgotten,"
                            + " and fingerprint unlock is off until the passcode is entered." + lost))
            }
            guard noMatches < tries else {
                return .fail(.noMatch((tries == 1 ? "No match." : "No match after \(tries) tries.") + lost))
            }
            return .scanAgain(notice: "No match." + lost + " Try again.")
        case .retry(let reason):
            hints += 1
            guard hints <= Self.maximumRetryHints else {
                return .fail(.unreadable("The reader could not read the finger: \(reason.hint)"))
            }
            return .scanAgain(notice: reason.hint)
        case .printsLost(let sentence):
            return .fail(.printsLost(sentence))
        }
    }
}
