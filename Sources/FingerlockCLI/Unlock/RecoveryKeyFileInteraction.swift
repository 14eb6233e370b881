import Auth
import SafeFiles

/// Another interaction, except that a new recovery key goes into a new 0600 file instead of being
/// shown: for scripts, whose stdout may be a log or nothing at all. The file is written before the
/// change that makes the key valid, as a shown key is.
struct RecoveryKeyFileInteraction: AuthInteraction {
    let base: any AuthInteraction
    let path: String

    var canAskPasscode: Bool { base.canAskPasscode }
    var passcodeFromScript: Bool { base.passcodeFromScript }
    func notify(_ message: String) { base.notify(message) }
    func scan<Scanned: Sendable>(prompt: String, _ operation: @escaping @Sendable () async throws -> Scanned) async throws
        -> ScanOutcome<Scanned>
    {
        try await base.scan(prompt: prompt, operation)
    }
    func askSecret(prompt: String, typedAhead: String) async throws -> String {
        try await base.askSecret(prompt: prompt, typedAhead: typedAhead)
    }

    func presentRecoveryKey(_ text: String) async throws {
        try NewPrivateFile.write(Array(RecoveryKeyText.line(text).utf8), to: path)
        base.notify("The new recovery key is in \(path) (mode 0600): keep it somewhere safe, away from this computer.")
    }
}
