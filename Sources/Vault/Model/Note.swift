public import Foundation

/// A note as the user sees it. Everything here is sealed at rest; only `id` is stored in the clear
/// (it names the row and lets the CLI accept an abbreviated id).
public struct Note: Codable, Sendable, Hashable, Identifiable {
    public var id: UUID
    public var title: String
    public var body: String
    public var tags: [String]
    public var created: Date
    public var modified: Date

    public init(id: UUID = UUID(), title: String, body: String, tags: [String] = [], created: Date, modified: Date) {
        self.id = id
        self.title = title
        self.body = body
        self.tags = tags
        self.created = created
        self.modified = modified
    }

    /// The listing view of this note.
    public var summary: NoteSummary {
        NoteSummary(id: id, title: title, tags: tags, created: created, modified: modified)
    }
}

/// What a listing shows: everything but the body. Listing decrypts only these small headers, never
/// the bodies, so it stays fast with many notes. Matches the CLI's `notes list --json` shape.
public struct NoteSummary: Codable, Sendable, Hashable, Identifiable {
    public var id: UUID
    public var title: String
    public var tags: [String]
    public var created: Date
    public var modified: Date

    public init(id: UUID, title: String, tags: [String], created: Date, modified: Date) {
        self.id = id
        self.title = title
        self.tags = tags
        self.created = created
        self.modified = modified
    }
}

extension NoteSummary {
    func hasTag(_ tag: String) -> Bool {
        let wanted = tag.lowercased()
        return tags.contains { $0.lowercased() == wanted }
    }
}

// Encoded with the id in lower case, as fingerlock prints ids everywhere (`UUID`'s own encoding is
// upper-case); decoding is synthesized and reads either case. Notes are sealed with `ByteCoding`,
// never with Codable, so this changes output only.
extension Note {
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id.storageKey, forKey: .id)
        try container.encode(title, forKey: .title)
        try container.encode(body, forKey: .body)
        try container.encode(tags, forKey: .tags)
        try container.encode(created, forKey: .created)
        try container.encode(modified, forKey: .modified)
    }
}

extension NoteSummary {
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id.storageKey, forKey: .id)
        try container.encode(title, forKey: .title)
        try container.encode(tags, forKey: .tags)
        try container.encode(created, forKey: .created)
        try container.encode(modified, forKey: .modified)
    }
}
