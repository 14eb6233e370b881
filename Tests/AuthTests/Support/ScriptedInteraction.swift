import Auth
import Fingerprint
import Synchronization

/// The user, scripted: answers to secret prompts, what to do at each scan, and a record of what
/// the user was told.
final class ScriptedInteraction: AuthInteraction {
    enum ScanAction: Sendable {
        /// Let the reader answer.
        case read
        /// Ask for the passcode during the scan, having typed this.
        case askPasscode(typed: String)
    }

    enum Answer: Sendable {
        case secret(String)
        case cancel
    }

    struct State {
        var answers: [Answer]
        var scanActions: [ScanAction]
        var notices: [String] = []
        var prompts: [String] = []
        var typedAhead: [String] = []
        var recoveryKeys: [String] = []
        var scans = 0
    }

    /// What `presentRecoveryKey` does: show it, fail to (output closed), or see the user cancel.
    enum RecoveryKeyOutcome: Sendable {
        case shown, fails, cancelled
    }

    let canAskPasscode: Bool
    let passcodeFromScript: Bool
    private let state: Mutex<State>

    let recoveryKeyOutcome: RecoveryKeyOutcome

    init(
        answers: [Answer] = [], scanActions: [ScanAction] = [], canAskPasscode: Bool = true, passcodeFromScript: Bool = false,
        recoveryKey: RecoveryKeyOutcome = .shown
    ) {
        self.recoveryKeyOutcome = recoveryKey
        self.canAskPasscode = canAskPasscode
        self.passcodeFromScript = passcodeFromScript
        state = Mutex(State(answers: answers, scanActions: scanActions))
    }

    convenience init(
        secrets: [String], scanActions: [ScanAction] = [], canAskPasscode: Bool = true,
        recoveryKey: RecoveryKeyOutcome = .shown
    ) {
        self.init(
            answers: secrets.map(Answer.secret), scanActions: scanActions, canAskPasscode: canAskPasscode,
            recoveryKey: recoveryKey)
    }

    var recoveryKeys: [String] { state.withLock { $0.recoveryKeys } }

    func presentRecoveryKey(_ text: String) async throws {
        switch recoveryKeyOutcome {
        case .shown: state.withLock { $0.recoveryKeys.append(text) }
        case .fails: throw AuthError(.dataError, "Cannot write the output: No space left on device.")
        case .cancelled: throw AuthError(.userCancel, "Cancelled.")
        }
    }

    var notices: [String] { state.withLock { $0.notices } }
    var prompts: [String] { state.withLock { $0.prompts } }
    var typedAhead: [String] { state.withLock { $0.typedAhead } }
    var scans: Int { state.withLock { $0.scans } }
    var unusedAnswers: Int { state.withLock { $0.answers.count } }

    func notify(_ message: String) { state.withLock { $0.notices.append(message) } }

    func scan<Scanned: Sendable>(
        prompt: String, _ operation: @escaping @Sendable () async throws -> Scanned
    ) async throws -> ScanOutcome<Scanned> {
        let action = state.withLock { state -> ScanAction in
            state.scans += 1
            return state.scanActions.isEmpty ? .read : state.scanActions.removeFirst()
        }
        switch action {
        case .read: return .scanned(try await operation())
        case .askPasscode(let typed): return .passcodeRequested(typedAhead: typed)
        }
    }

    func askSecret(prompt: String, typedAhead: String) async throws -> String {
        let answer = state.withLock { state -> Answer? in
            state.prompts.append(prompt)
            state.typedAhead.append(typedAhead)
            return state.answers.isEmpty ? nil : state.answers.removeFirst()
        }
        switch answer {
        case .secret(let text): return text
        case .cancel: throw AuthError(.userCancel, "Cancelled.")
        case nil: throw AuthError(.passcodeRequired, "No more scripted answers.")
        }
    }
}
