public import Foundation
public import Vault

/// What one version of a note says: its content, or that it was deleted (a tombstone).
public struct NoteState: Codable, Sendable, Equatable {
    public var title: String
    public var body: String
    public var tags: [String]
    public var created: Date
    public var modified: Date
    /// A tombstone: the note was deleted by this version (the other fields are empty).
    public var deleted: Bool

    public init(title: String, body: String, tags: [String], created: Date, modified: Date, deleted: Bool = false) {
        self.title = title
        self.body = body
        self.tags = tags
        self.created = created
        self.modified = modified
        self.deleted = deleted
    }

    public init(_ note: Note) {
        self.init(title: note.title, body: note.body, tags: note.tags, created: note.created, modified: note.modified)
    }

    public static func tombstone(at date: Date) -> NoteState {
        NoteState(title: "", body: "", tags: [], created: date, modified: date, deleted: true)
    }

    /// Same content: what a user can see and change (dates are the clocks' business, never a merge's).
    public func sameContent(as other: NoteState) -> Bool {
        deleted == other.deleted && title == other.title && body == other.body && tags == other.tags
    }

    public func note(id: UUID) -> Note {
        Note(id: id, title: title, body: body, tags: tags, created: created, modified: modified)
    }

    enum CodingKeys: String, CodingKey {
        case title = "t"
        case body = "b"
        case tags = "g"
        case created = "c"
        case modified = "m"
        case deleted = "x"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        title = try container.decodeIfPresent(String.self, forKey: .title) ?? ""
        body = try container.decodeIfPresent(String.self, forKey: .body) ?? ""
        tags = try container.decodeIfPresent([String].self, forKey: .tags) ?? []
        created = try container.decode(Date.self, forKey: .created)
        modified = try container.decode(Date.self, forKey: .modified)
        deleted = try container.decodeIfPresent(Bool.self, forKey: .deleted) ?? false
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if deleted {
            try container.encode(true, forKey: .deleted)
        } else {
            try container.encode(title, forKey: .title)
            try container.encode(body, forKey: .body)
            if !tags.isEmpty { try container.encode(tags, forKey: .tags) }
        }
        try container.encode(created, forKey: .created)
        try container.encode(modified, forKey: .modified)
    }
}
