import Crypto
public import Foundation
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
    public func start(remoteURL: String, deviceName: String, allowDeletions: Bool = false) throws -> SyncReport {
        guard try vault.syncState() == nil else {
            throw SyncError(.invalidInput, "Sync is already set up for this vault; run `fingerlock sync`.")
        }
        let listing = try remote.fetch()
        try Self.checkFormat(listing, storeID: try vault.storeID, remote: remote)
        let state = SyncDeviceState(device: UUID(), deviceName: deviceName, remote: remoteURL)
        try vault.setSyncState(try Self.encode(state))
        var report = try sync(allowDeletions: allowDeletions)
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
            if !added.isEmpty {
                if !state.outbox.isEmpty { progress?("Pushing \(state.outbox.count) \(state.outbox.count == 1 ? "record" : "records")") }
                let published = try remote.publish(
                    RemotePublication(added: added, message: "fingerlock sync"), onto: listing)
                guard published else { continue }
            }
            state.outbox = []
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
        let format = try remote.read([RemoteLayout.formatFile], from: listing)[RemoteLayout.formatFile]
        guard let format else {
            if listing.sizes.keys.contains(where: { $0.hasPrefix(RemoteLayout.devicesFolder) }) {
                throw SyncError(.tampered, "The remote has records but no \(RemoteLayout.formatFile) file; it was changed outside fingerlock.")
            }
            return
        }
        guard let theirs = RemoteLayout.storeID(inFormat: format) else {
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
