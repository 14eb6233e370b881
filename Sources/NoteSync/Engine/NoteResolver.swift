import Crypto
import Foundation
import Vault

/// Decides, note by note, what a sync makes of the versions that met: the note's new state here,
/// whether this machine must send a version (its own change, or a merge), and conflict copies.
/// The same versions give the same decision on every machine (merges run in version order, copies
/// get ids derived from what they came from), so machines that merge the same concurrent changes
/// agree without talking.
struct NoteResolver {
    struct Decision {
        var id: UUID
        var state: NoteState
        /// The heads this machine settles on when it sends nothing.
        var heads: [VersionID]
        /// The parents of the version this machine sends, when it sends one.
        var emit: [VersionID]?
        var isCopy = false
        var restored = false
        /// Deleted by this machine's own change (not counted as a deletion from elsewhere).
        var deletedHere = false
        /// Made by this machine since the last sync (not counted as arrived).
        var createdHere = false
    }

    let store: VersionStore
    /// The version this machine's record will carry.
    let newVersion: VersionID
    let now: Date
    private(set) var decisions: [Decision] = []
    private var decided = Set<UUID>()

    init(store: VersionStore, newVersion: VersionID, now: Date) {
        self.store = store
        self.newVersion = newVersion
        self.now = now
    }

    /// - Parameters:
    ///   - initial: the heads at the last sync; `heads`: after this sync's records.
    ///   - local: the note here now (nil when absent); `dirty`: changed here since the last sync.
    ///   - keepOverDeletion: this machine's notes were put back (a restored copy): a deletion
    ///     elsewhere does not remove them silently.
    mutating func resolve(
        _ id: UUID, initial: [VersionID], heads: [VersionID], local: Note?, isLive: Bool, dirty: Bool, keepOverDeletion: Bool
    ) throws {
        guard !decided.contains(id) else { return }
        if !dirty {
            guard heads != initial, !heads.isEmpty else { return }
            let merged = try resolveHeads(heads, id)
            record(Decision(id: id, state: merged.state, heads: heads, emit: merged.needsSending ? heads : nil, restored: merged.restored))
            for copy in merged.copies { addCopy(copy) }
            return
        }
        let mine = local.map(NoteState.init) ?? NoteState.tombstone(at: now)
        if heads == initial {
            if heads.isEmpty && mine.deleted { return }  // made and removed between two syncs
            record(
                Decision(
                    id: id, state: mine, heads: heads, emit: heads, deletedHere: mine.deleted, createdHere: initial.isEmpty))
            return
        }
        let theirs = try resolveHeads(heads, id)
        let base = try initial.first.flatMap { try store.state($0, note: id) }
        var outcome = NoteMerge.merge(base: base, ours: theirs.state, theirs: mine)
        if keepOverDeletion, outcome.state.deleted, !mine.deleted {
            outcome.state = mine
            if !outcome.state.tags.contains(NoteMerge.conflictTag) { outcome.state.tags.append(NoteMerge.conflictTag) }
            outcome.restored = true
        }
        record(
            Decision(
                id: id, state: outcome.state, heads: heads, emit: heads, restored: outcome.restored || theirs.restored,
                deletedHere: outcome.state.deleted && isLive))
        for copy in theirs.copies { addCopy(copy) }
        if let copy = outcome.conflictCopy {
            addCopy((Self.copyID(id, heads + [newVersion]), copy))
        }
    }

    private mutating func record(_ decision: Decision) {
        decided.insert(decision.id)
        decisions.append(decision)
    }

    /// A conflict copy is a new note this machine sends (unless the same copy arrived already).
    private mutating func addCopy(_ copy: (UUID, NoteState)) {
        guard !decided.contains(copy.0) else { return }
        record(Decision(id: copy.0, state: copy.1, heads: [], emit: [], isCopy: true))
    }

    struct Resolved {
        var state: NoteState
        var copies: [(UUID, NoteState)] = []
        var needsSending = false
        var restored = false
    }

    /// One state for several heads: the same content needs nothing; otherwise they are merged in
    /// version order, each against its merge base, and the merge must be sent.
    func resolveHeads(_ heads: [VersionID], _ id: UUID) throws -> Resolved {
        var states: [(VersionID, NoteState)] = []
        for head in heads {
            if let state = try store.state(head, note: id) { states.append((head, state)) }
        }
        guard let (firstVersion, first) = states.first else {
            return Resolved(state: NoteState.tombstone(at: now))
        }
        var merged = first
        if states.allSatisfy({ $0.1.sameContent(as: merged) }) {
            for (_, state) in states.dropFirst() {
                merged.modified = max(merged.modified, state.modified)
                merged.created = min(merged.created, state.created)
            }
            return Resolved(state: merged)
        }
        var result = Resolved(state: merged, needsSending: true)
        var versions: Set<VersionID> = [firstVersion]
        for (version, state) in states.dropFirst() {
            let baseVersion = try store.mergeBase(versions, [version], note: id)
            let base = try baseVersion.flatMap { try store.state($0, note: id) }
            let outcome = NoteMerge.merge(base: base, ours: result.state, theirs: state)
            result.state = outcome.state
            result.restored = result.restored || outcome.restored
            versions.insert(version)
            if let copy = outcome.conflictCopy { result.copies.append((Self.copyID(id, versions.sorted()), copy)) }
        }
        return result
    }

    /// A conflict copy's id, derived from the note and the versions that met, so every machine
    /// that makes the same merge makes the same copy.
    static func copyID(_ note: UUID, _ versions: [VersionID]) -> UUID {
        var hash = SHA256()
        hash.update(data: Data("fingerlock/conflict-copy".utf8))
        withUnsafeBytes(of: note.uuid) { hash.update(bufferPointer: $0) }
        for version in versions.sorted() {
            withUnsafeBytes(of: version.device.uuid) { hash.update(bufferPointer: $0) }
            withUnsafeBytes(of: version.sequence.littleEndian) { hash.update(bufferPointer: $0) }
        }
        var bytes = Array(hash.finalize().prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x80  // version 8: custom
        bytes[8] = (bytes[8] & 0x3F) | 0x80  // RFC 4122 variant
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9], bytes[10],
                bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }
}
