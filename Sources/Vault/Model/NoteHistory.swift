public import Foundation

/// One earlier revision of a note, as `notes history` lists it: the number it had while it was the
/// current version, when it was saved, its title and tags, and its body's size in bytes.
public struct NoteRevision: Codable, Sendable, Hashable {
    public var number: UInt64
    public var title: String
    public var tags: [String]
    public var modified: Date
    public var size: Int

    public init(number: UInt64, title: String, tags: [String], modified: Date, size: Int) {
        self.number = number
        self.title = title
        self.tags = tags
        self.modified = modified
        self.size = size
    }
}

/// A note's history: its current revision number and the earlier revisions kept, newest first.
public struct NoteHistory: Codable, Sendable, Hashable {
    public var id: UUID
    public var current: UInt64
    public var revisions: [NoteRevision]

    public init(id: UUID, current: UInt64, revisions: [NoteRevision]) {
        self.id = id
        self.current = current
        self.revisions = revisions
    }

    // The id in lower case, as everywhere fingerlock prints one.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id.storageKey, forKey: .id)
        try container.encode(current, forKey: .current)
        try container.encode(revisions, forKey: .revisions)
    }
}

/// A note waiting in the trash: its header and when it was removed (the body stays sealed).
public struct TrashedNote: Codable, Sendable, Hashable, Identifiable {
    public var id: UUID
    public var title: String
    public var tags: [String]
    public var created: Date
    public var modified: Date
    public var deleted: Date

    /// Its header, as a live note's.
    public var summary: NoteSummary { NoteSummary(id: id, title: title, tags: tags, created: created, modified: modified) }

    public init(_ summary: NoteSummary, deleted: Date) {
        id = summary.id
        title = summary.title
        tags = summary.tags
        created = summary.created
        modified = summary.modified
        self.deleted = deleted
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id.storageKey, forKey: .id)
        try container.encode(title, forKey: .title)
        try container.encode(tags, forKey: .tags)
        try container.encode(created, forKey: .created)
        try container.encode(modified, forKey: .modified)
        try container.encode(deleted, forKey: .deleted)
    }
}
