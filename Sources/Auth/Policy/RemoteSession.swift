/// Detects a remote login: the person at the reader may not be the person typing, so the
/// fingerprint is skipped there.
public enum RemoteSession {
    /// The reason biometrics are skipped, or nil for a local session, as this machine's process
    /// table, logind, utmp and tmux show it (see `RemoteSessionDetector`).
    public static func reason(environment: [String: String]) -> String? {
        RemoteSessionDetector(environment: environment, probe: SystemSessionProbe()).reason()
    }
}
