import Auth
import Synchronization

/// A process table, logind, utmp and tmux made up for a test. Everything not set up is unreadable,
/// as on a system without `/proc`, logind or utmp.
struct FakeSessionProbe: SessionProbe {
    struct Process: Sendable {
        var name: String
        var parent: Int32
        var auditSession: UInt32? = nil
        /// As utmp names it: `pts/3`, `tty2`.
        var terminal: String? = nil
        var owner: UInt32 = 1000
        var controlGroups: String? = nil
    }

    /// Which probe calls were made, for tests about cost.
    final class CallLog: Sendable {
        private let calls = Mutex<[String]>([])
        func record(_ call: String) { calls.withLock { $0.append(call) } }
        var all: [String] { calls.withLock { $0 } }
    }

    var currentProcessID: Int32 = 100
    var currentUserID: UInt32 = 1000
    var processes: [Int32: Process] = [:]
    var logind: [String: String] = [:]
    var logins: [LoginRecord] = []
    /// `list-clients` output by socket; a socket not listed makes tmux fail.
    var tmux: [String: String] = [:]
    var log = CallLog()

    /// Adds a chain of processes, the first one's parent being the second, and so on; the last
    /// one's parent is `parentOfLast`.
    mutating func chain(_ links: [(Int32, String)], parentOfLast: Int32 = 1, auditSession: UInt32? = nil, terminal: String? = nil) {
        for (index, link) in links.enumerated() {
            let parent = index + 1 < links.count ? links[index + 1].0 : parentOfLast
            processes[link.0] = Process(name: link.1, parent: parent, auditSession: auditSession, terminal: terminal)
        }
    }

    func processStatus(_ pid: Int32) -> String? {
        guard let process = processes[pid] else { return nil }
        let device = process.terminal.map(Self.deviceNumber) ?? 0
        return "\(pid) (\(process.name)) S \(process.parent) \(pid) \(pid) \(device) -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 5000 1000 200\n"
    }

    func auditSessionID(_ pid: Int32) -> String? {
        log.record("sessionid \(pid)")
        return processes[pid].map { String($0.auditSession ?? UInt32.max) }
    }

    func controlGroups(_ pid: Int32) -> String? { processes[pid]?.controlGroups }
    func owner(_ pid: Int32) -> UInt32? { processes[pid]?.owner }
    func logindSession(_ id: String) -> String? { logind[id] }

    func processIDs(limit: Int) -> [Int32] {
        log.record("list processes")
        return Array(processes.keys.sorted().prefix(limit))
    }

    func loginRecords() -> [LoginRecord] { logins }
    func tmuxClients(socket: String) -> String? { tmux[socket] }

    /// The kernel's encoding of a terminal's device number, as `/proc/PID/stat` shows it.
    static func deviceNumber(_ line: String) -> Int32 {
        let (major, minor): (Int32, Int32) =
            if line.hasPrefix("pts/"), let index = Int32(line.dropFirst(4)) {
                (136 + index / 256, index % 256)
            } else if line.hasPrefix("tty"), let index = Int32(line.dropFirst(3)) { (4, index) } else { (0, 0) }
        return (major << 8) | (minor & 0xff) | ((minor & ~0xff) << 12)
    }
}
