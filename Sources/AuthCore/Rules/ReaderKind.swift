public import Fingerprint

/// The reader-kind rule, hosted by both modes: the reader in effect when a vault is created fixes
/// its kind for good. A vault made with a test reader (the simulated one, a libfprint `virtual_*`
/// driver) accepts only test readers; a hardware vault refuses them. So a script that can drive a
/// simulated reader never opens a real vault, and a real finger is never needed for a demo vault.
///
/// Vault stores the kind (covered by its slot-table MAC) and the service is told it; each maps
/// its own copy onto this one.
public enum ReaderKind: String, Codable, Sendable, CaseIterable {
    case test
    case hardware

    /// The kind of vault a reader creates.
    public init(of reader: ReaderIdentity) {
        self = reader.isTestReader ? .test : .hardware
    }

    /// Whether a vault of this kind may scan with `reader`.
    public func accepts(_ reader: ReaderIdentity) -> Bool {
        (self == .test) == reader.isTestReader
    }
}
