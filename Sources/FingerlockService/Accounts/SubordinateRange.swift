/// One line of `/etc/subuid`: `OWNER:FIRST:COUNT`, the uids FIRST..<FIRST+COUNT that `newuidmap`
/// lets OWNER (a user name, or a uid in digits) map into a user namespace of theirs.
public struct SubordinateRange: Sendable, Equatable {
    public var owner: String
    public var first: UInt32
    public var count: UInt32

    public init(owner: String, first: UInt32, count: UInt32) {
        self.owner = owner
        self.first = first
        self.count = count
    }

    public func contains(_ uid: UInt32) -> Bool {
        // In 64 bits: FIRST+COUNT may pass 2^32 - 1.
        uid >= first && UInt64(uid) < UInt64(first) + UInt64(count)
    }

    /// The ranges of a subuid file, in its order; lines that are not `OWNER:FIRST:COUNT` are
    /// skipped, as `newuidmap` skips them (they grant nothing).
    public static func parse(_ text: String) -> [SubordinateRange] {
        text.split(whereSeparator: \.isNewline).compactMap { line in
            let fields = line.split(separator: ":", omittingEmptySubsequences: false)
            guard fields.count == 3, !fields[0].isEmpty, let first = UInt32(fields[1]), let count = UInt32(fields[2]),
                count > 0
            else { return nil }
            return SubordinateRange(owner: String(fields[0]), first: first, count: count)
        }
    }
}
