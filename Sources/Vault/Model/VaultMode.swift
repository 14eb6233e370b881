/// Who holds the passcode's second factor (see the design's "System mode"). Recorded in the vault and
/// covered by the slot-table MAC, like its kind, so it cannot be flipped without the store master key.
public enum VaultMode: String, Codable, Sendable, CaseIterable {
    /// The passcode slot is the user's alone (scrypt of the passcode wraps the key): the default.
    case user
    /// The passcode slot also needs a per-vault secret that only the system service (fingerlockd) holds; it
    /// counts the attempts. The recovery-key slot is unchanged: it opens the vault without the service.
    case system
}
