import Crypto
public import Foundation
import SafeFiles
public import Vault

/// Sync of one vault with one remote (issue 42): fetch, check the remote's records, merge what
/// other machines changed with what changed here, write the result in one vault transaction
/// (with this machine's new record kept there until it is pushed), push. A push refused because
/// another machine pushed first starts the round again.
///
/// Freshness is judged by each device's sealed sequences, never by git's history: a remote that
/// drops, reorders, alters or rewinds records is refused before anything is applied.
public struct SyncEngine {
    let vault: Vault
    let remote: any SyncRemote
    let now: @Sendable () -> Date
    /// A sync that would move more than this share of the notes (and at least `deletionFloor`) to
    /// the trash stops and asks.
    public var deletionShare = 0.25
    public var deletionFloor = 5
    /// Rounds before giving up when other machines keep pushing first.
    public var attempts = 5
    /// Hears what a long sync is doing ("Applying 3 records").
    public var progress: (@Sendable (String) -> Void)?

    public init(vault: Vault, remote: any SyncRemote, now: @escaping @Sendable () -> Date = { Date() }) {
        self.vault = vault
        self.remote = remote
        self.now = now
    }

    // MARK: - Setting up

    /// Whether this vault is set up for sync.
    public func isSetUp() throws -> Bool { try vault.syncState() != nil }

    /// `sync init` (first machine) and the first sync after a join: this vault becomes a device of
    /// the remote, then syncs. A remote holding another vault is refused.
    @discardableResult
    public func start(remoteURL: String, deviceName: String, allowDeletions: Bool = false, usedPairing: String? = nil) throws
        -> SyncReport
    {
        let lock = try syncLock()
        defer { withExtendedLifetime(lock) {} }
        guard try vault.syncState() == nil else {
            throw SyncError(.invalidInput, "Sync is already set up for this vault; run `fingerlock sync`.")
        }
        let listing = try remote.fetch()
        try Self.checkFormat(listing, storeID: try vault.storeID, remote: remote)
        var state = SyncDeviceState(device: UUID(), deviceName: deviceName, remote: remoteURL)
        state.usedPairing = usedPairing.map(RemoteLayout.pairingPath)
        try vault.setSyncState(try Self.encode(state))
        var report = try syncHoldingLock(allowDeletions: allowDeletions)
        report.initialized = listing.isEmpty
        return report
    }

    /// What a joining machine needs from the remote before it has a vault: the store id and the
    /// shared recovery slot. Refuses a remote that holds no fingerlock vault.
    public static func joinInformation(from remote: any SyncRemote) throws -> (storeID: UUID, recoverySlot: Data, listing: RemoteListing) {
        let listing = try remote.fetch()
        let files = try remote.read([RemoteLayout.formatFile, RemoteLayout.recoverySlot], from: listing)
        guard let format = files[RemoteLayout.formatFile], let storeID = RemoteLayout.storeID(inFormat: format),
            let slot = files[RemoteLayout.recoverySlot]
        else {
            throw SyncError(
                .invalidInput, "That remote holds no fingerlock vault: set it up with `fingerlock sync init REMOTE` on a machine that has the notes.")
        }
        return (storeID, slot, listing)
    }

    /// Forgets sync on this machine (the notes stay; the remote is not touched).
    public func leave() throws { try vault.forgetSync() }

    // MARK: - Syncing

    /// One sync: rounds of fetch, merge, write and push until the push goes through.
    public func sync(allowDeletions: Bool = false) throws -> SyncReport {
        let lock = try syncLock()
        defer { withExtendedLifetime(lock) {} }
        return try syncHoldingLock(allowDeletions: allowDeletions)
    }

    /// One sync at a time per vault: two would both write the next sequence. (The vault's own lock
    /// keeps every other writer out of the transaction that applies a sync.)
    func syncLock() throws -> FileLock {
        do {
            return try FileLock(path: vault.directory + "/sync.lock", timeout: .zero)
        } catch  where error.code == .lockTimeout {
            throw SyncError(.busy, "Another `fingerlock sync` is running for this vault; try again when it has finished.")
        }
    }

    func syncHoldingLock(allowDeletions: Bool) throws -> SyncReport {
        var report = SyncReport()
        for _ in 0..<attempts {
            var state = try loadState()
            let listing = try remote.fetch()
            try round(listing, &state, allowDeletions: allowDeletions, report: &report)
            var added: [String: Data] = [:]
            for outgoing in state.outbox {
                added[RemoteLayout.recordPath(VersionID(device: state.device, sequence: outgoing.sequence))] = outgoing.sealed
            }
            if listing.sizes[RemoteLayout.formatFile] == nil {
                added[RemoteLayout.formatFile] = Data(RemoteLayout.formatText(storeID: try vault.storeID).utf8)
            }
            if listing.sizes[RemoteLayout.recoverySlot] == nil {
                added[RemoteLayout.recoverySlot] = try vault.sharedRecoverySlot()
            }
            let removed = try pairingsToRemove(listing, used: state.usedPairing)
            if !added.isEmpty || !removed.isEmpty {
                if !state.outbox.isEmpty { progress?("Pushing \(state.outbox.count) \(state.outbox.count == 1 ? "record" : "records")") }
                let published = try remote.publish(
                    RemotePublication(added: added, removed: removed, message: "fingerlock sync"), onto: listing)
                guard published else { continue }
            }
            state.outbox = []
            state.usedPairing = nil
            state.lastSync = now()
            try vault.setSyncState(try Self.encode(state))
            return report
        }
        throw SyncError(.busy, "Other machines kept pushing while this one synced; run `fingerlock sync` again.")
    }

    func loadState() throws -> SyncDeviceState {
        guard let data = try vault.syncState() else {
            throw SyncError(.notSetUp, "Sync is not set up here: run `fingerlock sync init REMOTE`, or `fingerlock sync join REMOTE` to join.")
        }
        do {
            return try JSONDecoder().decode(SyncDeviceState.self, from: data)
        } catch {
            throw SyncError(.tampered, "This machine's sync state does not read; run `fingerlock sync leave`, then join again.")
        }
    }

    static func encode(_ state: SyncDeviceState) throws -> Data { try JSONEncoder().encode(state) }

    static func checkFormat(_ listing: RemoteListing, storeID: UUID, remote: any SyncRemote) throws {
        guard !listing.isEmpty else { return }
        // git names a file by its content's hash: the one expected here need not be read.
        if let object = listing.objects[RemoteLayout.formatFile], object == gitBlobID(Data(RemoteLayout.formatText(storeID: storeID).utf8)) {
            return
        }
        let format = try remote.read([RemoteLayout.formatFile], from: listing)[RemoteLayout.formatFile]
        guard let format else {
            if listing.sizes.keys.contains(where: { $0.hasPrefix(RemoteLayout.devicesFolder) }) {
                throw SyncError(.tampered, "The remote has records but no \(RemoteLayout.formatFile) file; it was changed outside fingerlock.")
            }
            // Someone's project: sync adds commits to it, and a compaction would replace its history.
            throw SyncError(
                .invalidInput,
                "The remote already holds other files and no fingerlock vault; sync needs an empty repository of its own (git init --bare).")
        }
        guard let theirs = RemoteLayout.storeID(inFormat: format) else {
            if String(decoding: format, as: UTF8.self).hasPrefix("fingerlock sync ") {
                throw SyncError(.invalidInput, "The remote was set up by a newer fingerlock; upgrade fingerlock on this machine.")
            }
            throw SyncError(.tampered, "The remote's \(RemoteLayout.formatFile) file is not one fingerlock wrote.")
        }
        guard theirs == storeID else {
            throw SyncError(
                .invalidInput,
                "The remote holds another vault's notes (store \(theirs.uuidString.lowercased().prefix(8))); use an empty repository, or join that vault on a new data directory."
            )
        }
    }
}

/// git's id of a blob with these bytes (SHA-1 of its header and content, as git computes it).
func gitBlobID(_ content: Data) -> String {
    var hash = Insecure.SHA1()
    hash.update(data: Data("blob \(content.count)\0".utf8))
    hash.update(data: content)
    return hash.finalize().map { String(format: "%02x", $0) }.joined()
}

extension SyncEngine {
    /// Where sync stands. With `fetch`, asks the remote what is new (git only; what the records say
    /// needs the key, which the caller has opened the vault with).
    public func status(fetch: Bool) throws -> SyncStatus {
        let state = try loadState()
        let changedHere = try vault.syncChanges().changed.count
        var status = SyncStatus(
            remote: state.remote, device: state.device.uuidString.lowercased(), deviceName: state.deviceName,
            ahead: changedHere + state.outbox.count, behind: nil, conflicts: try vault.list(tag: NoteMerge.conflictTag).count,
            lastSync: state.lastSync, automatic: state.automatic == true, devices: [])
        guard fetch else { return status }
        let listing = try remote.fetch()
        try Self.checkFormat(listing, storeID: try vault.storeID, remote: remote)
        let sealing = RecordSealing(key: try vault.syncRecordKey(), storeID: try vault.storeID)
        let sequences = listing.recordSequences
        // After a compaction, devices whose records it covers are known from its marks.
        let covered = try Self.snapshotMarks(listing, remote: remote, sealing: sealing)
        var behind = 0
        var lastPaths: [UUID: String] = [:]
        for (device, present) in sequences {
            if device != state.device { behind += present.filter { $0 > (state.marks[device] ?? 0) }.count }
            if let last = present.last { lastPaths[device] = RemoteLayout.recordPath(VersionID(device: device, sequence: last)) }
        }
        status.behind = behind
        let lastRecords = try remote.read(Array(lastPaths.values), from: listing)
        let devices = Set(sequences.keys).union(covered?.marks.keys ?? [:].keys)
        for device in devices.sorted(by: { $0.uuidString < $1.uuidString }) {
            let sequence = max(sequences[device]?.last ?? 0, covered?.marks[device] ?? 0)
            let record = try lastPaths[device].flatMap { lastRecords[$0] }.map {
                try sealing.open($0, as: VersionID(device: device, sequence: sequences[device]?.last ?? 0))
            }
            status.devices.append(
                SyncDevice(
                    id: device.uuidString.lowercased(), name: record?.deviceName ?? covered?.deviceNames?[device] ?? "?",
                    records: sequence, lastRecord: record?.written, thisMachine: device == state.device,
                    removed: state.removedDevices?[device] != nil))
        }
        return status
    }

    /// `sync remove-device`: the device whose id starts with `prefix` is removed from sync on every
    /// machine at their next sync: its records after this point are not applied anywhere, and it
    /// stops syncing itself. What it already has stays readable to it (it holds the vault key):
    /// only a rekey and a new remote shut it out of future changes.
    public func removeDevice(_ prefix: String) throws -> (device: UUID, report: SyncReport) {
        let lock = try syncLock()
        defer { withExtendedLifetime(lock) {} }
        var state = try loadState()
        let listing = try remote.fetch()
        let lowered = prefix.lowercased()
        let known = Set(listing.recordSequences.keys).union(state.marks.keys)
        let matches = known.filter { $0.uuidString.lowercased().hasPrefix(lowered) }
        guard !lowered.isEmpty, matches.count == 1, let device = matches.first else {
            throw SyncError(
                .invalidInput,
                matches.isEmpty
                    ? "No device's id starts with \"\(prefix)\" (see `fingerlock sync status`)."
                    : "\"\(prefix)\" fits more than one device; type more of its id.")
        }
        guard device != state.device else {
            throw SyncError(.invalidInput, "That is this machine: run `fingerlock sync leave` here instead.")
        }
        guard state.removedDevices?[device] == nil else {
            throw SyncError(.invalidInput, "Device \(Self.short(device)) is already removed.")
        }
        state.pendingRemovals = (state.pendingRemovals ?? [:]).merging([device: state.marks[device] ?? 0]) { min($0, $1) }
        try vault.setSyncState(try Self.encode(state))
        return (device, try syncHoldingLock(allowDeletions: false))
    }

    /// Whether every command that changes notes is followed by a sync (`sync auto on|off`).
    public func setAutomatic(_ on: Bool) throws {
        var state = try loadState()
        state.automatic = on ? true : nil
        try vault.setSyncState(try Self.encode(state))
    }

    /// Whether this vault syncs after every change (false when sync is not set up).
    public static func isAutomatic(_ vault: Vault) throws -> Bool {
        guard let data = try vault.syncState() else { return false }
        return (try? JSONDecoder().decode(SyncDeviceState.self, from: data).automatic) == true
    }

    /// The remote this vault syncs with (nil before `sync init` or a join).
    public static func remoteURL(of vault: Vault) throws -> String? {
        guard let data = try vault.syncState() else { return nil }
        return try? JSONDecoder().decode(SyncDeviceState.self, from: data).remote
    }

    /// The notes marked as conflicts (copies, and notes brought back over a deletion).
    public static let conflictTag = NoteMerge.conflictTag
}
