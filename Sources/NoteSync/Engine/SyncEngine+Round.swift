import Crypto
import Foundation
import Vault

extension SyncEngine {
    /// One round against one fetched snapshot: checks, merge, and the vault write (which keeps
    /// this machine's new record in the outbox). Throws before writing anything on a refusal.
    func round(_ listing: RemoteListing, _ state: inout SyncDeviceState, allowDeletions: Bool, report: inout SyncReport) throws {
        let storeID = try vault.storeID
        try Self.checkFormat(listing, storeID: storeID, remote: remote)
        let sealing = RecordSealing(key: try vault.syncRecordKey(), storeID: storeID)
        let marks = try Self.snapshotMarks(listing, remote: remote, sealing: sealing)
        let snapshot = SnapshotReader(listing: listing, remote: remote, sealing: sealing, marks: marks)
        let store = VersionStore(remote: remote, listing: listing, sealing: sealing, snapshot: snapshot.open)
        let sequences = listing.recordSequences
        try Self.checkSequences(sequences, covered: marks?.marks ?? [:], state: state)
        let fork = try settleOwnRecords(listing, sequences, covered: marks?.marks ?? [:], &state, sealing)
        if fork != nil { report.continuedAsNewDevice = true }
        // This machine's records not yet pushed are versions like any other (its notes' heads name them).
        for outgoing in state.outbox {
            store.add(try sealing.open(outgoing.sealed, as: VersionID(device: state.device, sequence: outgoing.sequence)))
        }

        // Records of other devices not applied yet, in an order that respects what each was based on.
        var incoming: [ChangeRecord] = []
        var wanted: [VersionID] = []
        for (device, present) in sequences where device != state.device {
            let mark = state.marks[device] ?? 0
            wanted += present.filter { $0 > mark }.map { VersionID(device: device, sequence: $0) }
        }
        for version in wanted {
            let path = RemoteLayout.recordPath(version)
            if let size = listing.sizes[path], size > Self.fileSizeLimit {
                throw SyncError(
                    .tampered,
                    "The remote's \(path) is \(size / 1_048_576) MB, more than any record fingerlock writes; nothing was read or applied.")
            }
        }
        if !wanted.isEmpty { progress?("Reading \(wanted.count) \(wanted.count == 1 ? "record" : "records")") }
        let contents = try remote.read(wanted.map(RemoteLayout.recordPath), from: listing)
        for version in wanted.sorted() {
            guard let sealed = contents[RemoteLayout.recordPath(version)] else {
                throw SyncError(.missing, "The remote listed \(RemoteLayout.recordPath(version)) but did not give it; run sync again.")
            }
            let record = try sealing.open(sealed, as: version)
            store.add(record)
            incoming.append(record)
        }
        // Devices removed from sync: this one stops; another's records after its mark are not applied.
        var removed = state.removedDevices ?? [:]
        for (device, mark) in marks?.removed ?? [:] { removed[device] = min(removed[device] ?? mark, mark) }
        // A removal decided here counts here at once, as it will everywhere once its record arrives.
        for (device, mark) in state.pendingRemovals ?? [:] { removed[device] = min(removed[device] ?? mark, mark) }
        for record in incoming {
            for (device, mark) in record.removed ?? [:] { removed[device] = min(removed[device] ?? mark, mark) }
        }
        if removed[state.device] != nil {
            throw SyncError(
                .notSetUp,
                "Another machine removed this one from sync; its notes stay here. Run `fingerlock sync leave`, then join again if that was a mistake."
            )
        }
        state.removedDevices = removed.filter { state.pendingRemovals?[$0.key] == nil }.nilIfEmpty
        var ignored = 0
        incoming.removeAll { record in
            guard let mark = removed[record.device], record.sequence > mark else { return false }
            ignored += 1
            return true
        }
        var applied = state.marks
        applied[state.device] = state.sequence

        // A machine behind the snapshot (offline across a compaction) takes it first: the records it
        // missed are gone, and the snapshot says what they came to, deletions included.
        let behind = marks.map { $0.marks.contains { device, mark in (applied[device] ?? 0) < mark } } ?? false
        let adopted = behind ? try snapshot.open() : nil
        if let adopted { for (device, mark) in adopted.marks { applied[device] = max(applied[device] ?? 0, mark) } }
        let ordered = try Self.causalOrder(incoming, applied: &applied, removed: removed)
        // A removed device's later records are never asked for again.
        for (device, _) in removed { applied[device] = max(applied[device] ?? 0, sequences[device]?.last ?? 0) }
        report.received += ordered.count
        report.ignored += ignored

        // What changed here since the last sync: revisions that differ from the entries' (SQLite finds them).
        let (changed, liveNotes) = try vault.syncChanges()
        var dirty = Set(changed.keys)
        if fork != nil { dirty.formUnion(try vault.syncLedger().notes.keys) }
        var touched = dirty
        for record in ordered { for change in record.changes { touched.insert(change.id) } }
        if let adopted { for note in adopted.notes { touched.insert(note.id) } }
        guard !touched.isEmpty || state.pendingRemovals != nil || state.sequence == 0 else {
            state.marks = applied
            if fork != nil || ignored > 0 { try write(SyncWrite(), state) }
            return
        }

        var initialHeads: [UUID: [VersionID]] = [:]
        let decoder = JSONDecoder()
        for (id, data) in try vault.syncEntries(touched) {
            initialHeads[id] = try decoder.decode(SyncEntry.self, from: data).heads
        }
        if let fork { fork.replaceUnpushed(in: &initialHeads) }
        var heads = initialHeads
        if let adopted {
            // The snapshot's heads, and any head here that it does not cover (a version of this machine's
            // still in the outbox, one of a device the snapshot is older for): dropping those would undo them.
            for note in adopted.notes {
                let newer = (heads[note.id] ?? []).filter { $0.sequence > (adopted.marks[$0.device] ?? 0) }
                heads[note.id] = Array(Set(note.heads).union(newer)).sorted()
            }
        }
        for record in ordered {
            for change in record.changes {
                var set = Set(heads[change.id] ?? [])
                set.subtract(change.parents)
                set.insert(record.version)
                heads[change.id] = set.sorted()
            }
        }
        let revisions = try vault.noteRevisions(touched)
        let local = try vault.notes(ids: revisions.keys)

        // Decide each note.
        let newVersion = VersionID(device: state.device, sequence: state.sequence + 1)
        var resolver = NoteResolver(store: store, newVersion: newVersion, now: now())
        for id in touched.sorted(by: { $0.uuidString < $1.uuidString }) {
            try resolver.resolve(
                id, initial: initialHeads[id] ?? [], heads: heads[id] ?? [], local: local[id], isLive: revisions[id] != nil,
                dirty: dirty.contains(id), keepOverDeletion: fork != nil)
        }

        // Turn the decisions into the vault write and this machine's record.
        var write = SyncWrite()
        var changes: [NoteChange] = []
        var trashed = 0
        for decision in resolver.decisions {
            let id = decision.id
            write.expected[id] = revisions[id]
            if let emit = decision.emit { changes.append(NoteChange(id: id, parents: emit, state: decision.state)) }
            write.entries[id] = try JSONEncoder().encode(SyncEntry(heads: decision.emit != nil ? [newVersion] : decision.heads))
            let current = local[id].map(NoteState.init)
            if decision.state.deleted {
                if current != nil {
                    write.trash.append(id)
                    if !decision.deletedHere { trashed += 1 }
                }
            } else if current.map({ !$0.sameContent(as: decision.state) }) ?? true {
                write.put.append(decision.state.note(id: id))
                if decision.isCopy || decision.restored {
                    report.conflicts += 1
                } else if current == nil {
                    report.added += decision.createdHere ? 0 : 1
                } else {
                    report.changed += 1
                }
            } else if decision.restored {
                report.conflicts += 1
            }
        }
        report.deleted += trashed
        let live = liveNotes
        if !allowDeletions, trashed >= deletionFloor, Double(trashed) > deletionShare * Double(live) {
            throw SyncError(
                .massDeletion,
                "This sync would move \(trashed) of your \(live) notes to the trash (deleted on other machines); nothing was applied. "
                    + "If that is what you want, run `fingerlock sync --allow-deletions`.")
        }
        state.marks = applied
        // A device's first record announces it (its name, for `sync status`), changes or not.
        if !changes.isEmpty || state.pendingRemovals != nil || state.sequence == 0 {
            var seen = applied
            seen[state.device] = state.sequence
            let record = ChangeRecord(
                device: state.device, sequence: newVersion.sequence, deviceName: state.deviceName, seen: seen, written: now(),
                changes: changes, removed: state.pendingRemovals)
            for (device, mark) in state.pendingRemovals ?? [:] {
                state.removedDevices = (state.removedDevices ?? [:]).merging([device: mark]) { min($0, $1) }
            }
            state.pendingRemovals = nil
            state.sequence = newVersion.sequence
            state.marks[state.device] = newVersion.sequence
            state.outbox.append(OutgoingRecord(sequence: newVersion.sequence, sealed: try sealing.seal(record)))
            report.sent += changes.count
        }
        progress?("Writing \(write.entries.count) \(write.entries.count == 1 ? "note" : "notes")")
        try self.write(write, state)
    }

    private func write(_ write: SyncWrite, _ state: SyncDeviceState) throws {
        var write = write
        write.state = try Self.encode(state)
        try vault.applySync(write)
    }

    /// Every device's records must run on from what the snapshot covers (1, 2, 3… without one)
    /// with no gap, and reach at least what this machine applied of them: a gap is a record
    /// removed; a shorter run is a remote gone back. A snapshot counts as the records it covers.
    static func checkSequences(_ sequences: [UUID: [UInt64]], covered: [UUID: UInt64], state: SyncDeviceState) throws {
        for (device, present) in sequences {
            let start = covered[device] ?? 0
            for (index, sequence) in present.enumerated() where sequence != start + UInt64(index + 1) {
                throw SyncError(
                    .missing,
                    "Record \(start + UInt64(index + 1)) of device \(short(device)) is missing from the remote (it has record \(sequence)): "
                        + "a record was removed. Nothing was applied.")
            }
        }
        func last(_ device: UUID) -> UInt64 { max(sequences[device]?.last ?? 0, covered[device] ?? 0) }
        for (device, mark) in state.marks where device != state.device {
            if last(device) < mark {
                throw SyncError(
                    .rewound,
                    "The remote went back: it has \(last(device)) records of device \(short(device)), and this machine applied \(mark). "
                        + "Was an older history force-pushed? Nothing was applied; " + rewindRemedy)
            }
        }
        if last(state.device) < state.pushedSequence {
            throw SyncError(
                .rewound,
                "The remote went back: it has \(last(state.device)) of the \(state.pushedSequence) records this machine pushed. "
                    + "Was an older history force-pushed? Nothing was applied; " + rewindRemedy)
        }
    }

    /// The largest record or snapshot read (a hostile remote's 400 MB file would otherwise be read
    /// into memory whole before it failed to open).
    static let fileSizeLimit = 256 * 1_048_576

    /// What gets a machine past a remote that went back.
    static let rewindRemedy =
        "put the newer history back (another machine's sync.git mirror has it), or start again: `fingerlock sync leave`, then `fingerlock sync init` on a new empty repository."

    /// The marks of the compaction snapshot on the remote, opened (nil when there is none).
    static func snapshotMarks(_ listing: RemoteListing, remote: any SyncRemote, sealing: RecordSealing) throws -> SnapshotMarks? {
        let hasSnapshot = listing.sizes[RemoteLayout.snapshotFile] != nil
        guard listing.sizes[RemoteLayout.snapshotMarksFile] != nil else {
            if hasSnapshot { throw SyncError(.tampered, "The remote's snapshot has lost its marks; it was changed outside fingerlock.") }
            return nil
        }
        guard hasSnapshot, let sealed = try remote.read([RemoteLayout.snapshotMarksFile], from: listing)[RemoteLayout.snapshotMarksFile]
        else {
            throw SyncError(.tampered, "The remote's snapshot marks have no snapshot; it was changed outside fingerlock.")
        }
        return try sealing.openMarks(sealed)
    }

    static func short(_ device: UUID) -> String { String(device.uuidString.lowercased().prefix(8)) }

    /// Records of this device on the remote past what it knows it pushed: its own outbox, pushed by
    /// a sync that stopped before it could say so (dropped from the outbox), or records another copy
    /// of this data directory wrote (a clone or a restored backup). Then this machine continues as
    /// a new device; what it had not pushed is sent again as that device's.
    private func settleOwnRecords(
        _ listing: RemoteListing, _ sequences: [UUID: [UInt64]], covered: [UUID: UInt64], _ state: inout SyncDeviceState,
        _ sealing: RecordSealing
    ) throws -> Fork? {
        let own = max(sequences[state.device]?.last ?? 0, covered[state.device] ?? 0)
        let pushed = state.pushedSequence
        guard own > pushed else { return nil }
        let paths = (pushed + 1...own).map { RemoteLayout.recordPath(VersionID(device: state.device, sequence: $0)) }
        let theirs = try remote.read(paths, from: listing)
        var ours = true
        // A record a compaction covered cannot be compared: the compaction took it from the remote,
        // so it was pushed.
        for outgoing in state.outbox where outgoing.sequence <= own {
            let path = RemoteLayout.recordPath(VersionID(device: state.device, sequence: outgoing.sequence))
            if let found = theirs[path], found != outgoing.sealed { ours = false }
            if theirs[path] == nil && outgoing.sequence > (covered[state.device] ?? 0) { ours = false }
        }
        if ours && own <= state.sequence {
            state.outbox.removeAll { $0.sequence <= own }
            return nil
        }
        let unpushed = try state.outbox.map { try sealing.open($0.sealed, as: VersionID(device: state.device, sequence: $0.sequence)) }
        let old = state.device
        state.marks[old] = pushed
        state.device = UUID()
        state.sequence = 0
        state.outbox = []
        return Fork(oldDevice: old, unpushed: unpushed)
    }

    /// Orders records so each comes after everything it was based on (its device's earlier records
    /// and what its `seen` names); ties go by device and sequence, the same on every machine.
    static func causalOrder(_ records: [ChangeRecord], applied: inout [UUID: UInt64], removed: [UUID: UInt64]) throws
        -> [ChangeRecord]
    {
        // What a record saw of a removed device counts only up to the removal: the rest is applied nowhere.
        func needed(_ device: UUID, _ mark: UInt64) -> UInt64 { removed[device].map { min($0, mark) } ?? mark }
        var pending = records.sorted { $0.version < $1.version }
        var ordered: [ChangeRecord] = []
        while !pending.isEmpty {
            guard
                let index = pending.firstIndex(where: { record in
                    (applied[record.device] ?? 0) == record.sequence - 1
                        && record.seen.allSatisfy { device, mark in device == record.device || (applied[device] ?? 0) >= needed(device, mark) }
                })
            else {
                let stuck = pending[0]
                let lacking = stuck.seen.first { device, mark in device != stuck.device && (applied[device] ?? 0) < needed(device, mark) }
                let what = lacking.map { "record \($0.value) of device \(short($0.key))" } ?? "an earlier record of its own device"
                throw SyncError(
                    .missing,
                    "Record \(stuck.sequence) of device \(short(stuck.device)) was based on \(what), which the remote does not have. Nothing was applied."
                )
            }
            let record = pending.remove(at: index)
            applied[record.device] = record.sequence
            ordered.append(record)
        }
        return ordered
    }
}

/// A data directory found to be a copy: the device it was, and the records it wrote as that
/// device and never pushed (their versions are replaced by what they were based on).
struct Fork {
    var oldDevice: UUID
    var unpushed: [ChangeRecord]

    func replaceUnpushed(in heads: inout [UUID: [VersionID]]) {
        for record in unpushed.reversed() {
            for change in record.changes {
                guard var current = heads[change.id], let at = current.firstIndex(of: record.version) else { continue }
                current.remove(at: at)
                current = Array(Set(current).union(change.parents)).sorted()
                heads[change.id] = current
            }
        }
    }
}

/// Opens the remote's snapshot once, on first need, checked against the digest its marks state.
final class SnapshotReader {
    let listing: RemoteListing
    let remote: any SyncRemote
    let sealing: RecordSealing
    let marks: SnapshotMarks?
    private var opened: SyncSnapshot??

    init(listing: RemoteListing, remote: any SyncRemote, sealing: RecordSealing, marks: SnapshotMarks?) {
        self.listing = listing
        self.remote = remote
        self.sealing = sealing
        self.marks = marks
    }

    func open() throws -> SyncSnapshot? {
        if let opened { return opened }
        guard let marks else {
            opened = .some(nil)
            return nil
        }
        if let size = listing.sizes[RemoteLayout.snapshotFile], size > SyncEngine.fileSizeLimit {
            throw SyncError(.tampered, "The remote's snapshot is \(size / 1_048_576) MB, more than fingerlock writes; nothing was applied.")
        }
        guard let sealed = try remote.read([RemoteLayout.snapshotFile], from: listing)[RemoteLayout.snapshotFile] else {
            throw SyncError(.missing, "The remote listed its snapshot but did not give it; run sync again.")
        }
        guard Data(SHA256.hash(data: sealed)) == marks.digest else {
            throw SyncError(.tampered, "The remote's snapshot is not the one its marks name; it was changed outside fingerlock.")
        }
        let snapshot = try sealing.openSnapshot(sealed)
        guard snapshot.marks == marks.marks else {
            throw SyncError(.tampered, "The remote's snapshot is not the one its marks name; it was changed outside fingerlock.")
        }
        opened = .some(snapshot)
        return snapshot
    }
}
