import FingerlockTestSupport
import Foundation
import NoteSync
import Testing
import Vault

#if canImport(Glibc)
    import Glibc
#endif

/// Runs git for a test's own setup (never through the code under test).
@discardableResult
func shell(_ command: String) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    // stderr joins stdout in the shell: one Pipe given to Foundation's Process as both has its write end
    // closed twice, and the second close can hit a descriptor another test just opened.
    process.arguments = ["-c", "exec 2>&1; " + command]
    var environment = ProcessInfo.processInfo.environment
    environment["GIT_CONFIG_NOSYSTEM"] = "1"
    process.environment = environment
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw SyncError(.io, "setup failed: \(command): \(output)")
    }
    return output
}

/// A bare repository for machines to sync through, and each machine's own GitRemote to it.
final class GitRig: Sendable {
    let directory: String
    let bare: String

    init() throws {
        directory = FileManager.default.temporaryDirectory.path + "/git-sync-\(UUID().uuidString)"
        mkdir(directory, 0o700)
        bare = directory + "/remote.git"
        try shell("git init --quiet --bare '\(bare)'")
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    func remote(for machine: String, url: String? = nil, timeout: Duration = .seconds(60), git: String = "/usr/bin/git") -> GitRemote {
        GitRemote(
            url: url ?? bare, repository: directory + "/\(machine).git", gitExecutable: git,
            environment: ProcessInfo.processInfo.environment, timeout: timeout)
    }
}

@Suite("Sync through a real git repository", .timed)
struct GitRemoteTests {
    /// Two machines, each with its own data directory and its own GitRemote on one bare repository.
    func twoMachines(_ rig: GitRig, notes: [(String, String)]) throws -> (Machine, Machine, Network) {
        let network = Network(remote: rig.remote(for: "a"))
        let a = try network.first("a", notes: notes)
        let joining = Network(remote: rig.remote(for: "b"))
        // b joins through its own remote object (its own mirror), with the same recovery key.
        let info = try SyncEngine.joinInformation(from: joining.remote)
        let key = try Vault.joinKey(recoverySlot: info.recoverySlot, storeID: info.storeID, recoveryKey: network.recoveryKey)
        let clock = TestClock(advancingEachReadingBy: 1)
        let (vault, _) = try Vault.create(
            in: network.dataDirectory("b"), passcode: "b", kind: .test, cost: testCost, recoveryKey: network.recoveryKey,
            configuration: VaultConfiguration(now: { clock.now() }), joining: key)
        let b = Machine(name: "b", vault: vault, remote: joining.remote, clock: clock)
        try b.engine.start(remoteURL: rig.bare, deviceName: "b")
        return (a, b, network)
    }

    @Test func twoMachinesSyncThroughABareRepositoryWithANeutralIdentity() throws {
        let rig = try GitRig()
        let (a, b, network) = try twoMachines(rig, notes: [("bank", "pin 1"), ("mail", "x")])
        defer { withExtendedLifetime(network) {} }
        #expect(try b.contents() == a.contents())
        try a.edit("bank") { $0.body = "pin 2" }
        try b.edit("mail") { $0.tags = ["b"] }
        try a.sync()
        try b.sync()
        try a.sync()
        #expect(try a.contents() == b.contents())
        #expect(try b.note(titled: "bank")?.body == "pin 2")
        let authors = try shell("git --git-dir='\(rig.bare)' log --format='%an <%ae> %cn <%ce>' main")
        let lines = Set(authors.split(separator: "\n"))
        #expect(lines == ["fingerlock <fingerlock@invalid> fingerlock <fingerlock@invalid>"])
        let names = try shell("git --git-dir='\(rig.bare)' ls-tree -r --name-only main")
        #expect(!names.contains("bank") && !names.contains("mail"))
        let blobs = try shell("git --git-dir='\(rig.bare)' cat-file --batch-all-objects --batch")
        #expect(!blobs.contains("pin 1") && !blobs.contains("pin 2"))
    }

    @Test func aForcePushOfAnOlderHistoryIsRefused() throws {
        let rig = try GitRig()
        let (a, b, network) = try twoMachines(rig, notes: [("n", "1")])
        defer { withExtendedLifetime(network) {} }
        let old = try shell("git --git-dir='\(rig.bare)' rev-parse main").trimmingCharacters(in: .whitespacesAndNewlines)
        try a.edit("n") { $0.body = "2" }
        try a.sync()
        try b.sync()
        try shell("git --git-dir='\(rig.bare)' update-ref refs/heads/main \(old)")
        let error = expectSyncError(.rewound) { try b.sync() }
        #expect(error?.message.contains("went back") == true)
        #expect(try b.note(titled: "n")?.body == "2")
    }

    @Test func hooksAttributesAndConfigInTheRemoteRunNothing() throws {
        let rig = try GitRig()
        let (a, b, network) = try twoMachines(rig, notes: [("n", "1")])
        defer { withExtendedLifetime(network) {} }
        let marker = rig.directory + "/hook-ran"
        // A .gitattributes with a filter and a textconv, committed on the remote's branch.
        let work = rig.directory + "/work"
        try shell(
            """
            git clone --quiet --branch main '\(rig.bare)' '\(work)' && cd '\(work)' && \
            printf '* filter=evil diff=evil\\n' > .gitattributes && \
            git -c user.name=x -c user.email=x@x add .gitattributes && \
            git -c user.name=x -c user.email=x@x commit --quiet -m attrs && \
            git -c core.hooksPath=/dev/null push --quiet origin HEAD:main
            """)
        for hook in ["pre-receive", "update", "post-receive", "post-update", "reference-transaction", "push-to-checkout"] {
            let path = rig.bare + "/hooks/" + hook
            try "#!/bin/sh\ntouch '\(marker)'\n".write(toFile: path, atomically: true, encoding: .utf8)
            chmod(path, 0o755)
        }
        try shell("git --git-dir='\(rig.bare)' config core.hooksPath '\(rig.bare)/hooks'")
        // The trap works: a plain push to this repository runs its hooks.
        try shell("cd '\(work)' && git -c user.name=x -c user.email=x@x commit --quiet --allow-empty -m x && git push --quiet origin HEAD:main")
        #expect(FileManager.default.fileExists(atPath: marker))
        unlink(marker)
        try a.edit("n") { $0.body = "2" }
        try a.sync()
        try b.sync()
        #expect(try b.note(titled: "n")?.body == "2")
        #expect(!FileManager.default.fileExists(atPath: marker), "a hook or filter of the remote ran")
    }

    @Test func anUnreachableRemoteSaysWhatGitSaid() throws {
        let rig = try GitRig()
        let network = Network(remote: rig.remote(for: "a", url: rig.directory + "/nowhere.git"))
        let clock = TestClock()
        let (vault, _) = try Vault.create(
            in: network.dataDirectory("a"), passcode: "a", kind: .test, cost: testCost, configuration: VaultConfiguration(now: { clock.now() }))
        let machine = Machine(name: "a", vault: vault, remote: network.remote, clock: clock)
        let error = expectSyncError(.git) { try machine.engine.start(remoteURL: "x", deviceName: "a") }
        #expect(error?.message.contains("does not appear to be a git repository") == true, "\(String(describing: error?.message))")
    }

    @Test func aGitThatHangsIsStoppedAtTheTimeLimit() throws {
        let rig = try GitRig()
        let script = rig.directory + "/slow-git"
        try "#!/bin/sh\nexec sleep 30\n".write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o755)
        let remote = rig.remote(for: "a", timeout: .seconds(1), git: script)
        // A program another test's thread forked while this script was open for writing cannot be
        // started for a moment (ETXTBSY): that is the test's race, not the behaviour tested.
        var message = ""
        var elapsed = Duration.zero
        for _ in 0..<10 {
            let started = ContinuousClock.now
            do {
                _ = try remote.fetch()
            } catch {
                message = error.message
            }
            elapsed = ContinuousClock.now - started
            if !message.contains("Text file busy") { break }
            usleep(200_000)
        }
        #expect(message.contains("did not finish within 1 s"), "\(message)")
        #expect(elapsed < .seconds(10))
    }

    @Test func aPushRefusedBecauseTheOtherMachinePushedFirstIsRetried() throws {
        let rig = try GitRig()
        let (a, b, network) = try twoMachines(rig, notes: [("n", "1\n2\n3")])
        defer { withExtendedLifetime(network) {} }
        try a.edit("n") { $0.body = "one\n2\n3" }
        try b.edit("n") { $0.body = "1\n2\nthree" }
        let racing = RacingRemote(inner: a.remote, before: { _ = try? b.sync() })
        let report = try SyncEngine(vault: a.vault, remote: racing, now: { Date() }).sync()
        #expect(report.received >= 1)
        try b.sync()
        #expect(try a.contents() == b.contents())
        #expect(try a.note(titled: "n")?.body == "one\n2\nthree")
    }
}

extension GitRemoteTests {
    @Test func aPushTheRemoteRefusesSaysWhatGitSaid() throws {
        let rig = try GitRig()
        let (a, _, network) = try twoMachines(rig, notes: [("n", "1")])
        defer { withExtendedLifetime(network) {} }
        // The remote takes no pack larger than 100 bytes (a server's quota, as a forge may set).
        try shell("git --git-dir='\(rig.bare)' config receive.maxInputSize 100")
        try a.edit("n") { $0.body = String(repeating: "a long body ", count: 500) }
        let error = expectSyncError(.git) { try a.sync() }
        #expect(
            error?.message.contains("git could not push") == true || error?.message.contains("refused") == true,
            "\(String(describing: error?.message))")
        #expect(error.map { !$0.message.contains("\n") } ?? false)
        try shell("git --git-dir='\(rig.bare)' config --unset receive.maxInputSize")
        let report = try a.sync()
        #expect(report.sent == 0)
    }
}

extension GitRemoteTests {
    @Test func aRepositoryOnThisMachineWhoseSettingsWouldRunACommandIsRefused() throws {
        let rig = try GitRig()
        let (a, _, network) = try twoMachines(rig, notes: [("n", "1")])
        defer { withExtendedLifetime(network) {} }
        let marker = rig.directory + "/ran"
        try shell("git --git-dir='\(rig.bare)' config core.alternateRefsCommand 'touch \(marker); true'")
        try a.edit("n") { $0.body = "2" }
        let error = expectSyncError(.invalidInput) { try a.sync() }
        #expect(error?.message.lowercased().contains("core.alternaterefscommand") == true, "\(String(describing: error?.message))")
        #expect(!FileManager.default.fileExists(atPath: marker))
        try shell("git --git-dir='\(rig.bare)' config --unset core.alternateRefsCommand")
        try a.sync()
    }

    @Test func remotesAreKeptAbsoluteAndGitsHelperFormsAreRefused() {
        #expect(GitRemote.canonical("notes.git", currentDirectory: "/home/u/x") == "/home/u/x/notes.git")
        #expect(GitRemote.canonical("../n.git", currentDirectory: "/home/u/x") == "/home/u/n.git")
        #expect(GitRemote.canonical("/srv/n.git", currentDirectory: "/x") == "/srv/n.git")
        #expect(GitRemote.canonical("git@host:notes.git", currentDirectory: "/x") == "git@host:notes.git")
        #expect(GitRemote.canonical("ssh://host/notes.git", currentDirectory: "/x") == "ssh://host/notes.git")
        for refused in ["ext::sh -c touch% /tmp/x", "fd::3", "-uhttp", "a\nb", ""] {
            #expect(GitRemote.canonical(refused, currentDirectory: "/x") == nil, "\(refused)")
        }
    }
}

/// A remote that lets another machine push between this one's fetch and its push, once.
final class RacingRemote: SyncRemote, @unchecked Sendable {
    // Unchecked: used by one test on one thread.
    let inner: any SyncRemote
    var before: (() -> Void)?

    init(inner: any SyncRemote, before: @escaping () -> Void) {
        self.inner = inner
        self.before = before
    }

    func fetch() throws(SyncError) -> RemoteListing { try inner.fetch() }
    func read(_ paths: [String], from listing: RemoteListing) throws(SyncError) -> [String: Data] { try inner.read(paths, from: listing) }
    func publish(_ publication: RemotePublication, onto listing: RemoteListing) throws(SyncError) -> Bool {
        if let run = before {
            before = nil
            run()
        }
        return try inner.publish(publication, onto: listing)
    }
}
