public import Crypto
public import Fingerprint

/// What a matching touch released.
public struct SystemTouch: Sendable {
    public var key: SymmetricKey
    /// The finger that matched and its reader; nil when the key was released within the reuse
    /// window, without a scan.
    public var finger: Finger?
    public var reader: ReaderIdentity?
    /// Whether the service knows the vault's settings (nil: it did not say).
    public var policyKnown: Bool?

    public init(key: SymmetricKey, finger: Finger?, reader: ReaderIdentity?, policyKnown: Bool? = nil) {
        self.key = key
        self.finger = finger
        self.reader = reader
        self.policyKnown = policyKnown
    }
}
