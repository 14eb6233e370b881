public import Fingerprint
import Foundation

/// The simulated reader driven by a person at the terminal: each scan asks which finger touches;
/// Enter means "use the passcode instead".
public struct TerminalTouchSource: SimulatedTouchSource {
    let terminal: Terminal

    public init(terminal: Terminal) { self.terminal = terminal }

    public func nextTouch(for purpose: SimulatedScanPurpose, timeout: Duration) async throws -> SimulatedTouch {
        while true {
            terminal.write(prompt(for: purpose))
            switch try await terminal.readLine(timeout: timeout) {
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
                terminal.write("'\(answer)' is not a finger. Type a finger name such as right-index-finger, or press Enter.\n")
            }
        }
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

