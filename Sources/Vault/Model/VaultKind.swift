/// Which readers a vault accepts, fixed when it is created and covered by the slot-table MAC, so it
/// cannot be flipped without the store master key (see the design's policy section).
public enum VaultKind: String, Codable, Sendable, CaseIterable {
    /// Created with a test reader (simulated or a libfprint `virtual_*` driver): accepts only those.
    case test
    /// Created with real hardware: refuses test readers.
    case hardware
}
