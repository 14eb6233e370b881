/// Detects a remote login: the person at the reader may not be the person typing, so the
/// fingerprint is skipped there.
public enum RemoteSession {
    /// The reason biometrics are skipped, or nil for a local session.
    public static func reason(environment: [String: String]) -> String? {
        for variable in ["SSH_CONNECTION", "SSH_CLIENT", "SSH_TTY"] where !(environment[variable] ?? "").isEmpty {
            return "This is a remote (SSH) session, so the fingerprint is not used: the person at the reader may not be the one typing."
        }
        return nil
    }
}
