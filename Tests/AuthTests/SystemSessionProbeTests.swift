import FingerlockTestSupport
import Foundation
import Glibc
import Synchronization
import Testing

@testable import Auth

/// The detector against this machine's real `/proc`, logind, utmp and tmux.
@Suite(.timed) struct SystemSessionProbeTests {
    @Test func theRealProbeReadsThisProcessAndTheDetectorAnswers() {
        let probe = SystemSessionProbe()
        #expect(probe.processStatus(probe.currentProcessID)?.hasPrefix("\(probe.currentProcessID) (") == true)
        #expect(probe.processIDs(limit: 3).count <= 3)
        #expect(probe.processStatus(-1) == nil)
        #expect(probe.logindSession("../../etc/passwd") == nil)
        let evidence = RemoteSessionDetector(environment: ProcessInfo.processInfo.environment, probe: probe).evidence()
        if LocalSessionCheck.isClearlyLocal {
            #expect(evidence == nil)
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func aTmuxClientAttachedUnderSSHMakesThePaneRemote() async throws {
        let tmux = try TmuxFixture()
        defer { tmux.stop() }
        let (pane, server) = try tmux.start()
        let detector = RemoteSessionDetector(environment: ["TMUX": "\(tmux.socket),\(server),0"], probe: PaneProbe(pane: pane))

        try await tmux.attach(underFakeSSHD: false)
        if LocalSessionCheck.isClearlyLocal {
            #expect(detector.evidence() == nil)
        }

        try await tmux.attach(underFakeSSHD: true)
        let evidence = detector.evidence()
        #expect(evidence != nil)
        if LocalSessionCheck.isClearlyLocal {
            guard case .multiplexerClient("tmux", _, _, .ancestor(_, "sshd")) = evidence else {
                Issue.record("expected a tmux client under sshd, got \(String(describing: evidence))")
                return
            }
        }
    }
}

/// The real system, seen from a process in a tmux pane rather than from the test. It lists no
/// processes, so that only tmux's own list of clients can find a remote one.
private struct PaneProbe: SessionProbe {
    let pane: Int32
    let system = SystemSessionProbe(tmuxTimeout: .seconds(5))
    var currentProcessID: Int32 { pane }
    var currentUserID: UInt32 { system.currentUserID }
    func processStatus(_ pid: Int32) -> String? { system.processStatus(pid) }
    func auditSessionID(_ pid: Int32) -> String? { system.auditSessionID(pid) }
    func controlGroups(_ pid: Int32) -> String? { system.controlGroups(pid) }
    func owner(_ pid: Int32) -> UInt32? { system.owner(pid) }
    func logindSession(_ id: String) -> String? { system.logindSession(id) }
    func processIDs(limit: Int) -> [Int32] { [] }
    func loginRecords() -> [LoginRecord] { system.loginRecords() }
    func tmuxClients(socket: String) -> String? { system.tmuxClients(socket: socket) }
}

/// Whether this test process is plainly in a local session, judged by simpler means than the
/// detector's: no SSH variables, no multiplexer, no SSH server among its ancestors, and logind (if
/// it knows the session) calls it local. Where this cannot tell, tests do not insist on "local".
enum LocalSessionCheck {
    static let isClearlyLocal: Bool = {
        let environment = ProcessInfo.processInfo.environment
        guard ["SSH_CONNECTION", "SSH_CLIENT", "SSH_TTY", "TMUX", "STY"].allSatisfy({ (environment[$0] ?? "").isEmpty }) else { return false }
        let probe = SystemSessionProbe()
        var pid = probe.currentProcessID
        var steps = 0
        while pid > 0, steps < 64 {
            steps += 1
            guard let stat = probe.processStatus(pid), let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")") else { break }
            let name = stat[stat.index(after: open)..<close]
            if ["sshd", "sshd-session", "dropbear", "mosh-server", "tmux: server", "screen"].contains(name) { return false }
            pid = stat[stat.index(after: close)...].split(separator: " ").dropFirst().first.flatMap { Int32($0) } ?? 0
        }
        let session = probe.auditSessionID(probe.currentProcessID)?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        if session.isEmpty || session == "4294967295" { return true }
        guard let record = probe.logindSession(session) else { return false }
        return record.contains("REMOTE=0") && !record.contains("SERVICE=sshd")
    }()
}

/// A private tmux server on its own socket, with one pane, to which clients are attached through
/// `script` (which gives each a pseudo-terminal), optionally under a shell renamed `sshd`. Programs
/// are run with `posix_spawn` and `waitpid`: Foundation's `Process` was seen never to report the
/// exit of a tmux client that had just started a server.
final class TmuxFixture: Sendable {
    static let tmuxPath = "/usr/bin/tmux"
    static let scriptPath = "/usr/bin/script"
    /// `/bin/sh` itself, not the link to it, so the copy runs under the copy's name.
    static let realShell = URL(fileURLWithPath: "/bin/sh").resolvingSymlinksInPath().path

    let directory: String
    var socket: String { directory + "/s" }
    private let environment: [String]
    private let attachers = Mutex<[pid_t]>([])

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("fl-rs-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        environment = ["PATH=/usr/bin:/bin", "TERM=xterm", "HOME=\(directory)", "SHELL=/bin/sh", "LANG=C.UTF-8"]
    }

    /// Starts the server with one detached session; returns the pane's and the server's process ids.
    func start() throws -> (pane: Int32, server: Int32) {
        var status: Int32 = -1
        let pid = try #require(spawn([Self.tmuxPath, "-f", "/dev/null", "-S", socket, "new-session", "-d", "-s", "t", "sleep 120"]))
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        try #require(status == 0)
        let ids = tmux(["display-message", "-p", "-t", "t", "#{pane_pid} #{pid}"]).split(whereSeparator: \.isWhitespace).compactMap { Int32($0) }
        try #require(ids.count == 2)
        return (ids[0], ids[1])
    }

    /// Attaches one more client and waits until tmux lists it.
    func attach(underFakeSSHD: Bool) async throws {
        let before = clientIDs().count
        var shell = "/bin/sh"
        if underFakeSSHD {
            shell = directory + "/sshd"
            if !FileManager.default.fileExists(atPath: shell) { try FileManager.default.copyItem(atPath: Self.realShell, toPath: shell) }
        }
        // `; exit $?` keeps the shell alive as the client's ancestor instead of exec'ing `script`.
        let attach = "\(Self.scriptPath) -qc '\(Self.tmuxPath) -S \(socket) attach -t t' /dev/null; exit $?"
        let pid = try #require(spawn([shell, "-c", attach]))
        attachers.withLock { $0.append(pid) }
        let deadline = ContinuousClock.now.advanced(by: .seconds(20))
        while clientIDs().count <= before, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(clientIDs().count == before + 1)
    }

    /// Ends the clients, the server and the attaching shells for certain: a tmux server may wait
    /// for clients that are slow to leave.
    func stop() {
        let server = tmux(["display-message", "-p", "#{pid}"]).split(whereSeparator: \.isWhitespace).compactMap { Int32($0) }
        let clients = clientIDs()
        _ = tmux(["kill-server"])
        for pid in clients + server where pid > 1 { kill(pid, SIGKILL) }
        for pid in attachers.withLock({ $0 }) {
            var status: Int32 = 0
            var waits = 0
            while waitpid(pid, &status, WNOHANG) == 0 {
                waits += 1
                if waits == 200 { kill(pid, SIGKILL) }
                usleep(10_000)
            }
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func clientIDs() -> [Int32] {
        tmux(["list-clients", "-F", "#{client_pid}"]).split(whereSeparator: \.isWhitespace).compactMap { Int32($0) }
    }

    /// A tmux command's output ("" if it failed).
    private func tmux(_ arguments: [String]) -> String {
        BoundedCommand(executable: Self.tmuxPath, arguments: ["-S", socket] + arguments, timeout: .seconds(10)).run() ?? ""
    }

    private func spawn(_ command: [String]) -> pid_t? {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for descriptor: Int32 in 0...2 {
            posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        let argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: pid_t = 0
        return posix_spawn(&pid, command[0], &actions, nil, argv, envp) == 0 ? pid : nil
    }
}
