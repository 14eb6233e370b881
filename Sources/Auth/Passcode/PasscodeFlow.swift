/// The passcode screens as a state machine, after SwiftPasscodeLock: set → confirm (a mismatch
/// starts over with "the passcodes didn't match"), change (current → new → confirm), reset
/// (recovery key → new → confirm). It holds no secrets beyond the flow and decides nothing about
/// the vault: checking the current passcode or recovery key is the repository's job.
public struct PasscodeFlow: Sendable {
    public enum Kind: Sendable { case set, change, reset }

    public enum Step: Equatable, Sendable {
        case enterCurrent
        case enterRecoveryKey
        case enterNew
        case confirmNew
        case finished
    }

    /// What the screen shows next.
    public struct Prompt: Equatable, Sendable {
        public var step: Step
        /// A line above the prompt: a mismatch, a rejection, a weakness warning.
        public var notice: String?

        public init(step: Step, notice: String?) {
            self.step = step
            self.notice = notice
        }
    }

    public let kind: Kind
    public private(set) var step: Step
    /// The credential that authorised the change (current passcode or recovery key), once checked.
    public private(set) var credential: String?
    /// The new passcode, once confirmed.
    public private(set) var newPasscode: String?
    private var candidate: String?

    public init(_ kind: Kind) {
        self.kind = kind
        switch kind {
        case .set: step = .enterNew
        case .change: step = .enterCurrent
        case .reset: step = .enterRecoveryKey
        }
    }

    public var prompt: Prompt { Prompt(step: step, notice: nil) }

    /// Feeds one answer. `check` says whether a current passcode or recovery key is right; it is
    /// called only at those steps.
    public mutating func submit(_ input: String, check: (Step, String) throws -> Bool) rethrows -> Prompt {
        switch step {
        case .enterCurrent, .enterRecoveryKey:
            guard try check(step, input) else {
                let what = step == .enterCurrent ? "passcode" : "recovery key"
                return Prompt(step: step, notice: "That \(what) is not right.")
            }
            credential = input
            step = .enterNew
            return Prompt(step: .enterNew, notice: nil)
        case .enterNew:
            // Compared as Swift strings (canonical equivalence); the vault alone normalises the
            // bytes it derives keys from.
            let passcode = input
            if let rejection = PasscodeRules.rejection(passcode) {
                return Prompt(step: .enterNew, notice: rejection)
            }
            candidate = passcode
            step = .confirmNew
            return Prompt(step: .confirmNew, notice: PasscodeRules.weakness(passcode))
        case .confirmNew:
            guard let candidate, input == candidate else {
                self.candidate = nil
                step = .enterNew
                return Prompt(step: .enterNew, notice: "The passcodes didn't match. Try again.")
            }
            newPasscode = candidate
            step = .finished
            return Prompt(step: .finished, notice: nil)
        case .finished:
            return Prompt(step: .finished, notice: nil)
        }
    }
}
