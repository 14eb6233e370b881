import Foundation

/// The person who typed a note's name: told which title a loose match took (a typo must not open
/// another note unsaid) and, at a terminal, asked which note was meant when the name fits several,
/// instead of exiting with the list.
struct NamingPerson: Sendable {
    /// Hears a one-line notice.
    let notice: @Sendable (String) -> Void
    /// Asks which of the notes was meant and returns it, or nil when no terminal turns out to be
    /// there; the closure is nil where nobody can answer (a script, `--json`).
    let choose: (@Sendable (_ name: String, _ candidates: [(id: UUID, title: String)]) async throws -> UUID?)?

    /// Nobody to tell or ask: an ambiguous name is an error, a loose match goes unsaid.
    static let nobody = NamingPerson(notice: { _ in }, choose: nil)

    /// The person at this command's terminal: notices on stderr; a choice asked at the controlling
    /// terminal when stdin is one too (a person is typing) and the output is not for a program.
    static func atTerminal(_ dependencies: CLIDependencies, json: Bool = false) -> NamingPerson {
        let err = dependencies.console.err
        let notice: @Sendable (String) -> Void = { err.write("fingerlock: " + $0 + "\n") }
        guard !json, dependencies.input.isTerminal else { return NamingPerson(notice: notice, choose: nil) }
        // The terminal is opened only when a name fits several notes, not on every command.
        return NamingPerson(notice: notice) { name, candidates in
            guard let terminal = dependencies.openTerminal() else { return nil }
            return try await CandidatesMenu(terminal: terminal, console: dependencies.console).choose(name, candidates)
        }
    }
}
