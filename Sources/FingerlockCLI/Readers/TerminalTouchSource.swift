public import Fingerprint
import Foundation

/// The simulated reader driven by a person at the terminal: each scan asks which finger touches;
/// Enter means "use the passcode instead".
public struct TerminalTouchSource: SimulatedTouchSource {
    let terminal: Terminal

    public init(terminal: Terminal) { self.terminal = terminal }

    public func nextTouch(for purpose: SimulatedScanPurpose, timeout: Duration) async throws -> SimulatedTouch {
        while true {
            switch try await terminal.readGuardedLine(prompt: prompt(for: purpose), timeout: timeout, echoes: Self.mayBeAnAnswer) {
            case .timedOut:
                terminal.write("\n")
                return .timeout
            case .endOfInput:
                return .fallback
            case .line(let raw):
                let answer = raw.trimmingCharacters(in: .whitespacesAndNewlines)
                if answer.isEmpty { return .fallback }
                if answer == "unknown" { return .unknown }
                if let finger = Finger(name: answer) { return .finger(finger) }
                if let script = try? SimulatedScript(parsing: answer), script.touches.count == 1 {
                    return script.touches[0]
                }
                // Never repeated back: it may have been the passcode, typed at the wrong prompt.
                terminal.write(
                    "That is not a finger name (not shown, in case it was your passcode). Type one such as right-index-finger, or press Enter.\n")
            }
        }
    }

    /// Everything the prompt accepts, in full: a finger (with or without `-finger`) or a script item.
    static let answers: [String] =
        Finger.allCases.flatMap { [$0.rawValue, $0.rawValue.replacingOccurrences(of: "-finger", with: "")] }
        + ["unknown", "timeout", "unplug", "busy", "error", "retry:short", "retry:center", "retry:remove", "retry:general"]

    /// Whether `typed` can still become an answer; anything else stays off the screen.
    static func mayBeAnAnswer(_ typed: String) -> Bool {
        let lowered = typed.trimmingCharacters(in: .whitespaces).lowercased()
        return answers.contains { $0.hasPrefix(lowered) }
    }

    private func prompt(for purpose: SimulatedScanPurpose) -> String {
        switch purpose {
        case .enroll(let finger, let stage, let total):
            "[simulated reader] touch \(stage)/\(total) for \(finger) — type a finger name, or Enter to stop: "
        case .verify(let finger):
            "[simulated reader] touch for \(finger) — type a finger name, or Enter for the passcode: "
        case .identify:
            "[simulated reader] touch the reader — type a finger name, or Enter for the passcode: "
        }
    }
}
