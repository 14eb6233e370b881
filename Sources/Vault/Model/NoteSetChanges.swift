public import Foundation

/// Which notes a restore brings back, takes away or changes, by id, comparing headers (title, tags,
/// dates) only, so it costs listings and no body; and the same for the trash and the earlier
/// revisions kept.
public struct NoteSetChanges: Sendable, Equatable {
    /// Earlier revisions of one note that a restore brings back or drops.
    public struct Revisions: Sendable, Equatable {
        public var note: NoteSummary
        public var count: Int

        public init(note: NoteSummary, count: Int) {
            self.note = note
            self.count = count
        }
    }

    /// In the backup, not in the vault now.
    public var appear: [NoteSummary] = []
    /// In the vault now, not in the backup.
    public var disappear: [NoteSummary] = []
    /// In both, with another title, tags or date in the backup (the backup's header).
    public var change: [NoteSummary] = []
    /// In the backup's trash, in neither the trash nor the notes now (restorable again afterwards).
    public var trashAppear: [NoteSummary] = []
    /// In the trash now, in neither the backup's trash nor its notes: gone for good once it is back.
    public var trashDisappear: [NoteSummary] = []
    /// Notes now that are in the backup's trash: they go back to the trash (not in `disappear`).
    public var toTrash: [NoteSummary] = []
    /// Earlier revisions kept in the backup and not now (`notes history` shows them again), and the
    /// reverse (gone for good), counted by the note they belong to (its header from either side).
    public var revisionsAppear: [Revisions] = []
    public var revisionsDisappear: [Revisions] = []

    public init() {}

    public init(from now: [NoteSummary], to after: [NoteSummary]) {
        let current = Dictionary(now.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let restored = Set(after.map(\.id))
        for note in after {
            if let mine = current[note.id] {
                if mine != note { change.append(note) }
            } else {
                appear.append(note)
            }
        }
        disappear = now.filter { !restored.contains($0.id) }
    }

    /// Adds what happens to the trash, compared by id as notes are; call it after `init(from:to:)`.
    /// A note that moves between the notes and the trash is said once, where it ends up: a trashed
    /// note that the backup has among its notes is in `appear`, a note that the backup has in its
    /// trash is in `toTrash`.
    public mutating func compareTrash(from now: [NoteSummary], to after: [NoteSummary]) {
        let trashedNow = Set(now.map(\.id))
        let trashedAfter = Set(after.map(\.id))
        let liveAfter = Set(appear.map(\.id)).union(change.map(\.id))
        toTrash = disappear.filter { trashedAfter.contains($0.id) }
        disappear.removeAll { trashedAfter.contains($0.id) }
        let movedToTrash = Set(toTrash.map(\.id))
        trashAppear = after.filter { !trashedNow.contains($0.id) && !movedToTrash.contains($0.id) }
        trashDisappear = now.filter { !trashedAfter.contains($0.id) && !liveAfter.contains($0.id) }
    }

    /// Adds what happens to the earlier revisions (note id → revision numbers kept); `headers` names
    /// the notes (a revision of a note in neither list is named by an untitled header).
    public mutating func compareRevisions(
        from now: [UUID: Set<UInt64>], to after: [UUID: Set<UInt64>], headers: [NoteSummary]
    ) {
        let named = Dictionary(headers.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        func header(_ id: UUID) -> NoteSummary {
            named[id] ?? NoteSummary(id: id, title: "", tags: [], created: .distantPast, modified: .distantPast)
        }
        func counted(_ from: [UUID: Set<UInt64>], missingIn other: [UUID: Set<UInt64>]) -> [Revisions] {
            from.compactMap { id, numbers in
                let missing = numbers.subtracting(other[id] ?? []).count
                return missing == 0 ? nil : Revisions(note: header(id), count: missing)
            }.sorted { ($0.note.title, $0.note.id.uuidString) < ($1.note.title, $1.note.id.uuidString) }
        }
        revisionsAppear = counted(after, missingIn: now)
        revisionsDisappear = counted(now, missingIn: after)
    }

    public var isEmpty: Bool {
        appear.isEmpty && disappear.isEmpty && change.isEmpty && trashAppear.isEmpty && trashDisappear.isEmpty && toTrash.isEmpty
            && revisionsAppear.isEmpty && revisionsDisappear.isEmpty
    }
}
