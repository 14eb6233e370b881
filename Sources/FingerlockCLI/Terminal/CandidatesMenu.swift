import Foundation

/// The numbered list a name that fits several notes opens at a terminal: the person types the
/// number of the note meant, or Enter to give up (exit 2, as leaving `pick` without a choice).
struct CandidatesMenu {
    /// More than this many is a name too loose to choose from: the error lists the first few.
    static let largest = 20
    /// A person who walked away gives up the choice.
    static let patience: Duration = .seconds(300)

    let terminal: Terminal
    let console: Console

    func choose(_ name: String, _ candidates: [(id: UUID, title: String)]) async throws -> UUID {
        let width = candidates.map { TerminalSafeText.line($0.title).count }.max() ?? 0
        var text = "\"\(TerminalSafeText.line(name))\" matches \(candidates.count) notes:\n"
        for (index, candidate) in candidates.enumerated() {
            let title = candidate.title.isEmpty ? "(untitled)" : TerminalSafeText.line(candidate.title)
            let number = String(index + 1).leftPadded(to: String(candidates.count).count)
            text +=
                "  \(number)  \(title)\(String(repeating: " ", count: max(width, 10) - title.count))  "
                + console.dim(String(candidate.id.uuidString.lowercased().prefix(8))) + "\n"
        }
        terminal.write(text)
        for _ in 0..<3 {
            terminal.write("Which one (1-\(candidates.count), Enter for none)? ")
            switch try await terminal.readLine(timeout: Self.patience) {
            case .timedOut, .endOfInput:
                terminal.write("\n")
                throw CLIError(.cancelled, "No note was chosen.")
            case .line(let answer):
                let trimmed = answer.trimmingCharacters(in: .whitespaces)
                if trimmed.isEmpty { throw CLIError(.cancelled, "No note was chosen.") }
                if let number = Int(trimmed), (1...candidates.count).contains(number) { return candidates[number - 1].id }
                terminal.write("Type a number from 1 to \(candidates.count).\n")
            }
        }
        throw CLIError(.cancelled, "No note was chosen.")
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
