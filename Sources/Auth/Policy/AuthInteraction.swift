import Fingerprint

/// What happened to one scan shown to the user.
public enum ScanOutcome<Scanned: Sendable>: Sendable {
    /// The reader answered (in system mode: fingerlockd, for its reader).
    case scanned(Scanned)
    /// The user asked for the passcode while the reader waited (typed, pressed Enter, or Ctrl-C);
    /// `typedAhead` is what they typed so far, the start of the passcode.
    case passcodeRequested(typedAhead: String)
}

extension ScanOutcome: Equatable where Scanned: Equatable {}

/// The user-facing side of authentication: the terminal in the CLI, a script in tests.
public protocol AuthInteraction: Sendable {
    /// Whether a passcode can be asked for at all (a terminal, or a passcode source).
    var canAskPasscode: Bool { get }
    /// Passcodes come from a script (`--passcode-stdin`, `--passcode-fd`): skip the reader.
    var passcodeFromScript: Bool { get }
    /// One line for the user: why the passcode is needed, a retry hint, "no match".
    func notify(_ message: String)
    /// Runs one scan with the scan prompt showing, letting the user switch to the passcode at any
    /// moment (which cancels the scan).
    func scan<Scanned: Sendable>(prompt: String, _ operation: @escaping @Sendable () async throws -> Scanned) async throws
        -> ScanOutcome<Scanned>
    /// Asks for a secret (passcode or recovery key) without echo. `typedAhead` was typed during the
    /// scan. Throws `AuthError(.userCancel)` on Ctrl-C and `.passcodeRequired` when there is nothing
    /// left to read.
    func askSecret(prompt: String, typedAhead: String) async throws -> String
    /// Shows a new recovery key once, before the change that makes it valid. Throws when it could not
    /// be shown (output closed or full) or the user cancelled, and then the change is not made.
    func presentRecoveryKey(_ text: String) async throws
}
