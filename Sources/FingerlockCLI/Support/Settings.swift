/// Defaults until security settings are stored sealed in the vault.
enum Settings {
    /// How long a scan waits for a finger.
    static let scanTimeout: Duration = .seconds(30)
    /// Retry hints tolerated within one `verify` touch before giving up.
    static let maxRetryHints = 5
}
