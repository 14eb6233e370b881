import Auth
import Fingerprint
import Synchronization

/// The person at the keyboard: the secrets they type, one per prompt, and what they were asked and
/// told. At a terminal (the default) a scan comes first and a wrong passcode is asked again; from a
/// script (`--passcode-fd`) the passcode is the one try and no scan is made.
final class ScriptedUser: AuthInteraction {
    private struct State {
        var secrets: [String]
        var prompts: [String] = []
        var notices: [String] = []
        var scanPrompts = 0
    }

    private let state: Mutex<State>
    let canAskPasscode = true
    let passcodeFromScript: Bool

    init(secrets: [String], fromScript: Bool = false) {
        state = Mutex(State(secrets: secrets))
        passcodeFromScript = fromScript
    }

    var prompts: Int { state.withLock { $0.prompts.count } }
    var notices: [String] { state.withLock { $0.notices } }
    var scanPrompts: Int { state.withLock { $0.scanPrompts } }

    func notify(_ message: String) { state.withLock { $0.notices.append(message) } }

    func scan<Scanned: Sendable>(
        prompt: String, _ operation: @escaping @Sendable () async throws -> Scanned
    ) async throws -> ScanOutcome<Scanned> {
        state.withLock { $0.scanPrompts += 1 }
        return .scanned(try await operation())
    }

    func askSecret(prompt: String, typedAhead: String) async throws -> String {
        let next = state.withLock { state -> String? in
            state.prompts.append(prompt)
            return state.secrets.isEmpty ? nil : state.secrets.removeFirst()
        }
        // With nothing left to type, a prompt ends the command: the scenario sees it, nothing waits.
        guard let next else { throw AuthError(.passcodeRequired, "The scenario typed no passcode here.") }
        return next
    }

    func presentRecoveryKey(_ text: String) async throws {}
}
