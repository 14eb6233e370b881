import Foundation

/// The versions a sync can see: the records it has opened, and any other record of the remote
/// snapshot, read and opened on first use. Answers what a version of a note said and what it was
/// based on, for merge bases.
final class VersionStore {
    private let remote: any SyncRemote
    private let listing: RemoteListing
    private let sealing: RecordSealing
    /// Each record's changes by note id (a join's first record holds every note: no linear search).
    private var records: [VersionID: [UUID: NoteChange]] = [:]
    /// Versions whose record is not on the remote (or did not open): asked once.
    private var unavailable: Set<VersionID> = []
    /// The compaction's snapshot: the states of the versions it kept as heads, opened on first need.
    private var snapshotStates: [UUID: (heads: [VersionID], state: NoteState)]?
    private let openSnapshot: (() throws -> SyncSnapshot?)?

    init(remote: any SyncRemote, listing: RemoteListing, sealing: RecordSealing, snapshot: (() throws -> SyncSnapshot?)? = nil) {
        self.remote = remote
        self.listing = listing
        self.sealing = sealing
        self.openSnapshot = snapshot
    }

    func add(_ record: ChangeRecord) {
        records[record.version] = Dictionary(record.changes.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    func add(_ snapshot: SyncSnapshot) {
        var states: [UUID: (heads: [VersionID], state: NoteState)] = [:]
        for note in snapshot.notes { states[note.id] = (note.heads, note.state) }
        snapshotStates = states
    }

    /// Reads the records of `versions` not yet here, in one request.
    func load(_ versions: some Sequence<VersionID>) throws {
        let wanted = Set(versions).filter { records[$0] == nil && !unavailable.contains($0) }
        guard !wanted.isEmpty else { return }
        let paths = wanted.map(RemoteLayout.recordPath)
        let contents = try remote.read(
            paths.filter { (listing.sizes[$0] ?? .max) <= SyncEngine.fileSizeLimit }, from: listing)
        for version in wanted {
            guard let sealed = contents[RemoteLayout.recordPath(version)] else {
                unavailable.insert(version)
                continue
            }
            add(try sealing.open(sealed, as: version))
        }
    }

    func change(_ version: VersionID, note: UUID) throws -> NoteChange? {
        try load([version])
        return records[version]?[note]
    }

    /// What `version` said of `note`: from its record, or from the snapshot when the record was
    /// compacted away (nil when neither has it).
    func state(_ version: VersionID, note: UUID) throws -> NoteState? {
        if let state = try change(version, note: note)?.state { return state }
        if snapshotStates == nil, let openSnapshot {
            snapshotStates = [:]
            if let snapshot = try openSnapshot() { add(snapshot) }
        }
        if let kept = snapshotStates?[note], kept.heads.contains(version) { return kept.state }
        return nil
    }

    /// The nearest version both `a` and `b` descend from (or are), nil when they share none that
    /// is still on the remote. Nearest to `b`, ties broken by version order: the same answer on
    /// every machine.
    func mergeBase(_ a: Set<VersionID>, _ b: Set<VersionID>, note: UUID) throws -> VersionID? {
        let ancestorsOfA = try ancestors(of: a, note: note)
        var level = b.sorted()
        var visited = Set<VersionID>()
        while !level.isEmpty {
            if let found = level.filter(ancestorsOfA.contains).max() { return found }
            try load(level)
            var next: [VersionID] = []
            for version in level where visited.insert(version).inserted {
                next.append(contentsOf: try change(version, note: note)?.parents ?? [])
            }
            level = Array(Set(next).subtracting(visited)).sorted()
        }
        return nil
    }

    private func ancestors(of start: Set<VersionID>, note: UUID) throws -> Set<VersionID> {
        var seen = start
        var level = Array(start)
        while !level.isEmpty {
            try load(level)
            var next: [VersionID] = []
            for version in level {
                for parent in try change(version, note: note)?.parents ?? [] where seen.insert(parent).inserted {
                    next.append(parent)
                }
            }
            level = next
        }
        return seen
    }
}
