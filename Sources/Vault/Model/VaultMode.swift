/// Who holds the passcode's second factor (see the design's "System mode"). Recorded in the vault and
/// covered by the slot-table MAC, like its kind, so it cannot be flipped without the store master key.
public enum VaultMode: String, Codable, Sendable, CaseIterable {
    /// The passcode slot is the user's alone (scrypt of the passcode wraps the key): the default.
    case user
    /// The passcode slot is sealed by a sealer that keeps a per-vault secret of its own and counts the
    /// attempts (the system service). The recovery-key slot is unchanged: it opens the vault without it.
    case system
}
