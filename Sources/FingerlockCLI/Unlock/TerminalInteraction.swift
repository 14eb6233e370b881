import Auth
import Fingerprint

/// Authentication at the controlling terminal, like sudo: the scan prompt, typing (or Enter, or
/// Ctrl-C) during the scan to switch to the passcode, and the passcode without echo.
final class TerminalInteraction: AuthInteraction {
    let terminal: Terminal
    /// The interactive simulated reader reads the terminal itself during its scan.
    let readerOwnsTerminal: Bool

    init(terminal: Terminal, readerOwnsTerminal: Bool) {
        self.terminal = terminal
        self.readerOwnsTerminal = readerOwnsTerminal
    }

    var canAskPasscode: Bool { true }
    var passcodeFromScript: Bool { false }

    func notify(_ message: String) { terminal.write(message + "\n") }

    func scan<Scanned: Sendable>(
        prompt: String, _ operation: @escaping @Sendable () async throws -> Scanned
    ) async throws -> ScanOutcome<Scanned> {
        if readerOwnsTerminal {
            do {
                return .scanned(try await withInterruptCancellation(operation))
            } catch is CancellationError {
                // Ctrl-C during the scan means "let me type the passcode".
                terminal.write("\n" + Self.afterCtrlC + "\n")
                return .passcodeRequested(typedAhead: "")
            }
        }
        let terminal = self.terminal
        // Raw mode before the prompt shows: nothing typed after it is ever echoed.
        return try await terminal.withRawInput {
            terminal.write(prompt + "\n")
            return try await withThrowingTaskGroup(of: ScanOutcome<Scanned>?.self) { group in
                group.addTask { .scanned(try await operation()) }
                group.addTask { try await Self.keyDuringScan(terminal) }
                defer { group.cancelAll() }
                while let next = try await group.next() {
                    if let outcome = next { return outcome }
                }
                throw CancellationError()
            }
        }
    }

    /// What Ctrl-C during the scan does, said in one line: a person who pressed it to quit learns
    /// that the next one does.
    static let afterCtrlC = "Ctrl-C: the scan stopped; type the passcode, or press Ctrl-C again to quit."

    /// Any key ends the scan: Enter or Ctrl-C switch to the passcode, and anything else typed is
    /// the passcode's beginning. Nil at end of input (the scan goes on).
    private static func keyDuringScan<Scanned>(_ terminal: Terminal) async throws -> ScanOutcome<Scanned>? {
        let forever = ContinuousClock.now.advanced(by: .seconds(86_400))
        while true {
            guard case .some(.some(let byte)) = try await terminal.readByte(until: forever) else {
                try await Task.sleep(for: .seconds(86_400))
                return nil
            }
            switch byte {
            case 0x0D, 0x0A: return .passcodeRequested(typedAhead: "")
            case 0x03:
                terminal.write(afterCtrlC + "\n")
                return .passcodeRequested(typedAhead: "")
            case 0x00..<0x20, 0x7F: continue
            default:
                var typed = [byte]
                // The rest of a multi-byte character is already waiting.
                while typed.count < 4, String(validating: typed, as: UTF8.self) == nil,
                    case .some(.some(let next)) = try await terminal.readByte(until: ContinuousClock.now.advanced(by: .milliseconds(50)))
                {
                    typed.append(next)
                }
                return .passcodeRequested(typedAhead: String(decoding: typed, as: UTF8.self))
            }
        }
    }

    func askSecret(prompt: String, typedAhead: String) async throws -> String {
        let terminal = self.terminal
        let secret: String? = try await terminal.withRawInput {
            terminal.write(prompt)
            var characters = Array(typedAhead)
            var pending: [UInt8] = []
            let forever = ContinuousClock.now.advanced(by: .seconds(86_400))
            while true {
                guard case .some(.some(let byte)) = try await terminal.readByte(until: forever) else {
                    return characters.isEmpty ? nil : String(characters)
                }
                switch byte {
                case 0x0D, 0x0A: return String(characters)
                case 0x03: return nil
                case 0x04 where characters.isEmpty: return nil
                case 0x7F, 0x08: if !characters.isEmpty { characters.removeLast() }
                case 0x15: characters.removeAll()
                case 0x00..<0x20: continue
                default:
                    pending.append(byte)
                    if let text = String(validating: pending, as: UTF8.self) {
                        characters.append(contentsOf: text)
                        pending.removeAll()
                    } else if pending.count >= 4 {
                        pending.removeAll()
                    }
                }
            }
        }
        terminal.write("\n")
        guard let secret else { throw AuthError(.userCancel, "Cancelled at the passcode prompt; nothing was changed.") }
        return secret
    }

    /// Shows the recovery key once and waits for the user to confirm it was saved; the change it
    /// belongs to is made only then (Ctrl-C here cancels it).
    func presentRecoveryKey(_ text: String) async throws {
        terminal.write(
            """

            Your recovery key — the only way back in if you forget the passcode. It is shown once:

                \(text)

            Write it down and keep it somewhere safe, away from this computer.
            Press Enter once you have saved it: 
            """)
        _ = try await askSecret(prompt: "", typedAhead: "")
    }
}
