public import FoundationEssentials

/// How long a user must wait before the next passcode attempt, as iOS does: none for the first
/// four wrong passcodes, then 1 min, 5 min, 15 min, 15 min, and 1 h from the ninth on.
public enum PasscodeDelays {
    public static func delay(afterFailures failures: Int) -> Duration {
        switch failures {
        case ..<5: .zero
        case 5: .seconds(60)
        case 6: .seconds(5 * 60)
        case 7, 8: .seconds(15 * 60)
        default: .seconds(60 * 60)
        }
    }

    /// The time left before another attempt is allowed, or nil when one is allowed now.
    public static func remaining(in state: AttemptState, now: Date) -> Duration? {
        let delay = delay(afterFailures: state.failedPasscodes)
        guard delay > .zero, let last = state.lastPasscodeFailure else { return nil }
        let elapsed = now.timeIntervalSince(last)
        let left = Double(delay.components.seconds) - elapsed
        return left > 0 ? .seconds(left.rounded(.up)) : nil
    }

    /// "4 min 10 s", "1 h", "12 s".
    public static func describe(_ duration: Duration) -> String {
        var seconds = max(0, duration.components.seconds)
        let hours = seconds / 3600
        seconds %= 3600
        let minutes = seconds / 60
        seconds %= 60
        var parts: [String] = []
        if hours > 0 { parts.append("\(hours) h") }
        if minutes > 0 { parts.append("\(minutes) min") }
        if seconds > 0 || parts.isEmpty { parts.append("\(seconds) s") }
        return parts.joined(separator: " ")
    }
}
