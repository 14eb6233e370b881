/// Which notes a restore brings back, takes away or changes: by id, comparing headers (title, tags,
/// dates) only, so it costs two listings and no body.
public struct NoteSetChanges: Sendable, Equatable {
    /// In the backup, not in the vault now.
    public var appear: [NoteSummary] = []
    /// In the vault now, not in the backup.
    public var disappear: [NoteSummary] = []
    /// In both, with another title, tags or date in the backup (the backup's header).
    public var change: [NoteSummary] = []

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

    public var isEmpty: Bool { appear.isEmpty && disappear.isEmpty && change.isEmpty }
}
