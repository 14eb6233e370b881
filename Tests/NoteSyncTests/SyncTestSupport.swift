import FingerlockTestSupport
import Foundation
import NoteSync
import Synchronization
import Testing
import Vault

#if canImport(Glibc)
    import Glibc
#endif

let testCost = KDFCost.insecureForTestsOnly(log2N: 10)

/// A remote in memory: one snapshot of files, moved by each publish; the tests tamper with it
/// directly.
final class MemoryRemote: SyncRemote, Sendable {
    struct Snapshot {
        var revision = 0
        var files: [String: Data] = [:]
    }

    let snapshot = Mutex(Snapshot())
    /// Called before a publish lands (a test makes another machine push first, or fails it).
    let beforePublish = Mutex<(@Sendable () throws(SyncError) -> Void)?>(nil)

    func fetch() throws(SyncError) -> RemoteListing {
        snapshot.withLock { snapshot in
            RemoteListing(revision: snapshot.files.isEmpty ? nil : String(snapshot.revision), sizes: snapshot.files.mapValues(\.count))
        }
    }

    /// Called before each read (a test runs a local command in the middle of a sync).
    let beforeRead = Mutex<(@Sendable ([String]) -> Void)?>(nil)

    func read(_ paths: [String], from listing: RemoteListing) throws(SyncError) -> [String: Data] {
        if let hook = beforeRead.withLock({ $0 }) { hook(paths) }
        return snapshot.withLock { snapshot in
            var found: [String: Data] = [:]
            for path in paths { found[path] = snapshot.files[path] }
            return found
        }
    }

    /// Called after a publish landed (a test makes the machine die before it hears so).
    let afterPublish = Mutex<(@Sendable () throws(SyncError) -> Void)?>(nil)

    func publish(_ publication: RemotePublication, onto listing: RemoteListing) throws(SyncError) -> Bool {
        if let hook = beforePublish.withLock({ $0 }) { try hook() }
        let landed = snapshot.withLock { snapshot in
            let current = snapshot.files.isEmpty ? nil : String(snapshot.revision)
            guard current == listing.revision else { return false }
            if publication.replacingHistory { snapshot.files = [:] }
            for (path, data) in publication.added {
                precondition(
                    path == RemoteLayout.snapshotFile || snapshot.files[path] == nil || snapshot.files[path] == data,
                    "a record was replaced: \(path)")
                snapshot.files[path] = data
            }
            for path in publication.removed { snapshot.files[path] = nil }
            snapshot.revision += 1
            return true
        }
        if landed, let hook = afterPublish.withLock({ $0 }) { try hook() }
        return landed
    }

    var files: [String: Data] {
        get { snapshot.withLock { $0.files } }
        set {
            snapshot.withLock {
                $0.files = newValue
                $0.revision += 1
            }
        }
    }

    var recordPaths: [String] { files.keys.filter { $0.hasPrefix("devices/") }.sorted() }
}

/// A machine: its own data directory and vault, joined to a remote.
final class Machine: Sendable {
    let name: String
    let vault: Vault
    let remote: any SyncRemote
    let clock: TestClock

    init(name: String, vault: Vault, remote: any SyncRemote, clock: TestClock) {
        self.name = name
        self.vault = vault
        self.remote = remote
        self.clock = clock
    }

    var engine: SyncEngine { SyncEngine(vault: vault, remote: remote, now: { [clock] in clock.now() }) }

    @discardableResult
    func sync(allowDeletions: Bool = false) throws -> SyncReport { try engine.sync(allowDeletions: allowDeletions) }

    /// Every live note as (title, body, tags), sorted: what must be equal on converged machines.
    func contents() throws -> [String] {
        try vault.allNotes().map { "\($0.id.uuidString)|\($0.title)|\($0.body)|\($0.tags.sorted())" }.sorted()
    }

    func note(titled title: String) throws -> Note? {
        try vault.allNotes().first { $0.title == title }
    }

    func edit(_ title: String, _ change: (inout Note) -> Void) throws {
        guard let note = try note(titled: title) else {
            Issue.record("\(name) has no note \(title)")
            return
        }
        try vault.update(id: note.id) { (note: inout Note) throws(VaultError) in change(&note) }
    }
}

/// A scratch directory for several machines' data directories, removed afterwards.
final class Network {
    let directory: String
    let remote: any SyncRemote
    let recoveryKey = RecoveryKey.generate()
    private var count = 0

    init(remote: any SyncRemote) {
        directory = FileManager.default.temporaryDirectory.path + "/sync-tests-\(UUID().uuidString)"
        mkdir(directory, 0o700)
        self.remote = remote
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    func dataDirectory(_ name: String) -> String { directory + "/" + name }

    /// The first machine: a new vault with `notes`, set up for sync.
    func first(_ name: String, notes: [(String, String)] = [], clock: TestClock = TestClock(advancingEachReadingBy: 1)) throws -> Machine {
        let (vault, _) = try Vault.create(
            in: dataDirectory(name), passcode: "pass", kind: .test, cost: testCost, recoveryKey: recoveryKey,
            configuration: VaultConfiguration(now: { clock.now() }))
        for (title, body) in notes { try vault.add(title: title, body: body) }
        let machine = Machine(name: name, vault: vault, remote: remote, clock: clock)
        try machine.engine.start(remoteURL: "memory", deviceName: name)
        return machine
    }

    /// A machine that joins with the recovery key.
    func join(_ name: String, clock: TestClock = TestClock(advancingEachReadingBy: 1)) throws -> Machine {
        let info = try SyncEngine.joinInformation(from: remote)
        let key = try Vault.joinKey(recoverySlot: info.recoverySlot, storeID: info.storeID, recoveryKey: recoveryKey)
        let (vault, _) = try Vault.create(
            in: dataDirectory(name), passcode: "pass-\(name)", kind: .test, cost: testCost, recoveryKey: recoveryKey,
            configuration: VaultConfiguration(now: { clock.now() }), joining: key)
        let machine = Machine(name: name, vault: vault, remote: remote, clock: clock)
        try machine.engine.start(remoteURL: "memory", deviceName: name)
        return machine
    }
}

/// Asserts that `body` throws a SyncError with `code`, and returns it.
@discardableResult
func expectSyncError<T>(_ code: SyncError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> T) -> SyncError? {
    do {
        _ = try body()
        Issue.record("expected SyncError.\(code), but it succeeded", sourceLocation: sourceLocation)
    } catch let error as SyncError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected SyncError.\(code), got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}
