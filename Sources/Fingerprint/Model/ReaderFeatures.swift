/// The capabilities a reader reports (a subset of libfprint's `FpDeviceFeature`).
public struct ReaderFeatures: OptionSet, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let capture = ReaderFeatures(rawValue: 1 << 0)
    public static let identify = ReaderFeatures(rawValue: 1 << 1)
    public static let verify = ReaderFeatures(rawValue: 1 << 2)
    public static let storage = ReaderFeatures(rawValue: 1 << 3)
    public static let storageList = ReaderFeatures(rawValue: 1 << 4)
    public static let storageDelete = ReaderFeatures(rawValue: 1 << 5)
    public static let storageClear = ReaderFeatures(rawValue: 1 << 6)
    public static let duplicatesCheck = ReaderFeatures(rawValue: 1 << 7)

    /// Stable names used in `readers --json` and human output, in a fixed order.
    public static let named: [(name: String, feature: ReaderFeatures)] = [
        ("capture", .capture), ("identify", .identify), ("verify", .verify), ("storage", .storage),
        ("storage-list", .storageList), ("storage-delete", .storageDelete), ("storage-clear", .storageClear),
        ("duplicates-check", .duplicatesCheck),
    ]

    public var names: [String] { Self.named.filter { contains($0.feature) }.map(\.name) }
    public var description: String { names.joined(separator: ", ") }

    public init(from decoder: any Decoder) throws {
        let names = try decoder.singleValueContainer().decode([String].self)
        var features = ReaderFeatures()
        for name in names {
            guard let entry = Self.named.first(where: { $0.name == name }) else {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: decoder.codingPath, debugDescription: "unknown reader feature \(name)"))
            }
            features.insert(entry.feature)
        }
        self = features
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(names)
    }
}
