import Foundation

/// Yes/no questions on the controlling terminal.
enum Confirmation {
    /// Asks `question`; true only for an explicit yes. Without a terminal, refuses with `hint`.
    static func ask(_ question: String, terminal: Terminal?, unlessFlag hint: String) async throws -> Bool {
        guard let terminal else {
            throw CLIError(.usage, "There is no terminal to confirm on: pass \(hint) to go ahead.")
        }
        terminal.write(question + " [y/N] ")
        guard case .line(let answer) = try await terminal.readLine(timeout: .seconds(600)) else { return false }
        return ["y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased())
    }
}
