public import Foundation

/// A fingerprint template as the policy layer stored it. The vault treats `data` as opaque bytes;
/// at rest it is sealed and bound to `reader` and `finger`, so a template cannot be planted or
/// moved to another finger without the store master key.
public struct SealedTemplate: Codable, Sendable, Hashable {
    /// The reader identity, "driver:device-id".
    public var reader: String
    /// The finger name, e.g. "right-index-finger".
    public var finger: String
    public var data: Data

    public init(reader: String, finger: String, data: Data) {
        self.reader = reader
        self.finger = finger
        self.data = data
    }
}
