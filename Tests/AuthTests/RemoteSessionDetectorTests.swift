import Auth
import FingerlockTestSupport
import Testing

/// One made-up system and what the detector must conclude about it.
struct SessionScenario: Sendable, CustomTestStringConvertible {
    var testDescription: String
    var environment: [String: String] = [:]
    var probe = FakeSessionProbe()
    var expected: RemoteEvidence?

    init(_ name: String, environment: [String: String] = [:], expected: RemoteEvidence?, build: (inout FakeSessionProbe) -> Void = { _ in }) {
        testDescription = name
        self.environment = environment
        self.expected = expected
        build(&probe)
    }
}

/// A local desktop: a terminal emulator in the graphical session, which logind records as local.
private func desktop(_ probe: inout FakeSessionProbe, terminal: String = "pts/0") {
    probe.chain([(100, "fingerlock"), (101, "bash"), (102, "gnome-terminal-")], auditSession: 2, terminal: terminal)
    probe.chain([(1, "systemd")], parentOfLast: 0)
    probe.logind["2"] = "# This is private data. Do not parse.\nUID=1000\nREMOTE=0\nTYPE=wayland\nSERVICE=gdm-password\nSEAT=seat0\n"
}

/// An SSH login as process 700 (bash, on pts/3) under sshd 702/703, in audit session 9.
private func sshLogin(_ probe: inout FakeSessionProbe, first: Int32 = 700, name: String = "bash") {
    probe.chain([(first, name), (first + 1, "bash"), (first + 2, "sshd"), (first + 3, "sshd")], auditSession: 9, terminal: "pts/3")
}

/// Inside tmux: fingerlock under a shell in a pane of tmux server 500, which daemonised (parent 1).
private func insideTmux(_ probe: inout FakeSessionProbe, auditSession: UInt32? = nil) {
    probe.chain([(100, "fingerlock"), (101, "bash"), (500, "tmux: server")], auditSession: auditSession, terminal: "pts/5")
    probe.chain([(1, "systemd")], parentOfLast: 0)
}

private let tmuxVariable = ["TMUX": "/tmp/tmux-1000/default,500,0"]

let sessionScenarios: [SessionScenario] = [
    SessionScenario("a local desktop terminal", expected: nil) { desktop(&$0) },
    SessionScenario("SSH_CONNECTION", environment: ["SSH_CONNECTION": "192.0.2.7 50000 192.0.2.1 22"], expected: .sshVariable("SSH_CONNECTION")) {
        desktop(&$0)
    },
    SessionScenario("SSH_CLIENT", environment: ["SSH_CLIENT": "192.0.2.7 50000 22"], expected: .sshVariable("SSH_CLIENT")),
    SessionScenario("SSH_TTY", environment: ["SSH_TTY": "/dev/pts/3"], expected: .sshVariable("SSH_TTY")),
    SessionScenario("empty SSH variables", environment: ["SSH_TTY": "", "SSH_CONNECTION": ""], expected: nil) { desktop(&$0) },

    SessionScenario("logind: the session is remote", expected: .logindSession(id: "7", service: "sshd", host: "192.0.2.7")) {
        insideTmux(&$0, auditSession: 7)
        $0.logind["7"] = "UID=1000\nREMOTE=1\nREMOTE_HOST=192.0.2.7\nSERVICE=sshd\nTYPE=tty\n"
    },
    SessionScenario("logind: ssh localhost is REMOTE=0 but opened by sshd", expected: .logindSession(id: "7", service: "sshd", host: "::1")) {
        insideTmux(&$0, auditSession: 7)
        $0.logind["7"] = "REMOTE=0\nREMOTE_HOST=::1\nSERVICE=sshd\n"
    },
    SessionScenario("logind: found through the cgroup scope without an audit session", expected: .logindSession(id: "c2", service: nil, host: nil)) {
        insideTmux(&$0)
        $0.processes[100]?.controlGroups = "0::/user.slice/user-1000.slice/session-c2.scope\n"
        $0.logind["c2"] = "REMOTE=1\n"
    },
    SessionScenario("logind: a crafted cgroup name is not a session id", expected: nil) {
        insideTmux(&$0)
        $0.processes[100]?.controlGroups = "0::/user.slice/session-..%2F7.scope\n"
        $0.logind["..%2F7"] = "REMOTE=1\n"
    },

    SessionScenario("ancestry: a shell under sshd", expected: .ancestor(processID: 702, name: "sshd")) {
        $0.chain([(100, "fingerlock"), (101, "bash"), (702, "sshd"), (703, "sshd")])
    },
    SessionScenario("ancestry: OpenSSH 9.8's sshd-session", expected: .ancestor(processID: 702, name: "sshd-session")) {
        $0.chain([(100, "fingerlock"), (101, "zsh"), (702, "sshd-session"), (703, "sshd")])
    },
    SessionScenario("ancestry: dropbear", expected: .ancestor(processID: 702, name: "dropbear")) {
        $0.chain([(100, "fingerlock"), (101, "ash"), (702, "dropbear")])
    },
    SessionScenario("ancestry: mosh-server after it daemonised", expected: .ancestor(processID: 702, name: "mosh-server")) {
        $0.chain([(100, "fingerlock"), (101, "bash"), (702, "mosh-server")])
    },
    SessionScenario("su - clears the environment, but ancestry reaches sshd", expected: .ancestor(processID: 104, name: "sshd")) {
        $0.chain([(100, "fingerlock"), (101, "bash"), (102, "su"), (103, "bash"), (104, "sshd"), (105, "sshd")], terminal: "pts/3")
    },
    SessionScenario("sudo -i", expected: .ancestor(processID: 105, name: "sshd")) {
        $0.chain([(100, "fingerlock"), (101, "bash"), (102, "sudo"), (103, "sudo"), (104, "bash"), (105, "sshd")])
    },

    SessionScenario(
        "audit session: a tmux server daemonised from SSH, no logind",
        expected: .sameLoginSession(processID: 702, name: "sshd", auditSession: 9)
    ) {
        insideTmux(&$0, auditSession: 9)
        sshLogin(&$0)
    },
    SessionScenario("audit session: an sshd in another session does not count", expected: nil) {
        insideTmux(&$0, auditSession: 4)
        sshLogin(&$0)
    },
    SessionScenario("audit session: unset sessions are not compared", expected: nil) {
        insideTmux(&$0)
        $0.chain([(702, "sshd")])
    },

    SessionScenario(
        "tmux started locally, one client attached from SSH", environment: tmuxVariable,
        expected: .multiplexerClient(multiplexer: "tmux", processID: 700, terminal: "/dev/pts/3", because: .ancestor(processID: 702, name: "sshd"))
    ) {
        insideTmux(&$0, auditSession: 2)
        $0.logind["2"] = "REMOTE=0\nSERVICE=gdm-password\n"
        $0.chain([(600, "tmux: client"), (601, "bash"), (602, "gnome-terminal-")], auditSession: 2, terminal: "pts/0")
        sshLogin(&$0, name: "tmux: client")
        $0.tmux["/tmp/tmux-1000/default"] = "600 /dev/pts/0\n700 /dev/pts/3\n"
    },
    SessionScenario("tmux started locally, only local clients", environment: tmuxVariable, expected: nil) {
        insideTmux(&$0, auditSession: 2)
        $0.logind["2"] = "REMOTE=0\nSERVICE=gdm-password\n"
        $0.chain([(600, "tmux: client"), (601, "bash"), (602, "gnome-terminal-")], auditSession: 2, terminal: "pts/0")
        sshLogin(&$0)
        $0.tmux["/tmp/tmux-1000/default"] = "600 /dev/pts/0\n"
    },
    SessionScenario(
        "tmux: TMUX removed, so this user's tmux clients are examined",
        expected: .multiplexerClient(multiplexer: "tmux", processID: 700, terminal: "/dev/pts/3", because: .ancestor(processID: 702, name: "sshd"))
    ) {
        insideTmux(&$0)
        sshLogin(&$0, name: "tmux: client")
    },
    SessionScenario("tmux: another user's remote client does not count", expected: nil) {
        insideTmux(&$0)
        sshLogin(&$0, name: "tmux: client")
        $0.processes[700]?.owner = 1001
    },

    SessionScenario(
        "screen attached from SSH", environment: ["STY": "500.pts-0.host"],
        expected: .multiplexerClient(multiplexer: "screen", processID: 700, terminal: "/dev/pts/3", because: .ancestor(processID: 702, name: "sshd"))
    ) {
        $0.chain([(100, "fingerlock"), (101, "bash"), (500, "screen")], terminal: "pts/5")
        sshLogin(&$0, name: "screen")
    },
    SessionScenario("screen attached locally", environment: ["STY": "500.pts-0.host"], expected: nil) {
        $0.chain([(100, "fingerlock"), (101, "bash"), (500, "screen")], terminal: "pts/5")
        $0.chain([(600, "screen"), (601, "bash"), (602, "xterm")], terminal: "pts/0")
    },

    SessionScenario("utmp: logged in from 192.0.2.7", expected: .terminalLogin(line: "pts/4", host: "192.0.2.7")) {
        $0.chain([(100, "fingerlock"), (101, "bash")], parentOfLast: 0, terminal: "pts/4")
        $0.logins = [LoginRecord(line: "pts/4", host: "192.0.2.7", processID: 101)]
    },
    SessionScenario("utmp: a forwarded X display", expected: .terminalLogin(line: "pts/4", host: "localhost:10.0")) {
        $0.chain([(100, "fingerlock"), (101, "xterm")], parentOfLast: 0, terminal: "pts/4")
        $0.logins = [LoginRecord(line: "pts/4", host: "localhost:10.0", processID: 101)]
    },
    SessionScenario("utmp: the local display :0", expected: nil) {
        desktop(&$0, terminal: "pts/4")
        $0.logins = [LoginRecord(line: "pts/4", host: ":0", processID: 101)]
    },
    SessionScenario("utmp: a tmux pane", expected: nil) {
        desktop(&$0, terminal: "pts/4")
        $0.logins = [LoginRecord(line: "pts/4", host: "tmux(1234).%0", processID: 101)]
    },
    SessionScenario("utmp: a local screen window", expected: nil) {
        desktop(&$0, terminal: "pts/4")
        $0.logins = [LoginRecord(line: "pts/4", host: ":pts/1:S.0", processID: 101)]
    },
    SessionScenario("utmp: another terminal's remote login", expected: nil) {
        desktop(&$0, terminal: "pts/4")
        $0.logins = [LoginRecord(line: "pts/40", host: "192.0.2.7", processID: 101)]
    },
    SessionScenario("utmp: a stale login whose process is gone", expected: nil) {
        desktop(&$0, terminal: "pts/4")
        $0.logins = [LoginRecord(line: "pts/4", host: "192.0.2.7", processID: 4242)]
    },

    SessionScenario("nothing readable", expected: nil),
    SessionScenario("nothing readable inside tmux and screen", environment: tmuxVariable.merging(["STY": "500.pts-0.host"]) { $1 }, expected: nil),
]

@Suite(.timed) struct RemoteSessionDetectorTests {
    @Test(arguments: sessionScenarios)
    func detects(_ scenario: SessionScenario) {
        let detector = RemoteSessionDetector(environment: scenario.environment, probe: scenario.probe)
        #expect(detector.evidence() == scenario.expected)
        #expect((detector.reason() != nil) == (scenario.expected != nil))
    }

    @Test func theReasonIsOneLineThatSaysWhich() throws {
        var probe = FakeSessionProbe()
        probe.chain([(100, "fingerlock"), (101, "bash"), (102, "su"), (103, "bash"), (104, "sshd")])
        let reason = try #require(RemoteSessionDetector(environment: [:], probe: probe).reason())
        #expect(reason.contains("remote (SSH) session"))
        #expect(reason.contains("sshd, process 104"))
        #expect(!reason.contains("\n"))
    }

    @Test func theProcessTableIsNotScannedWhereLogindKnowsTheSession() {
        var probe = FakeSessionProbe()
        desktop(&probe)
        #expect(RemoteSessionDetector(environment: [:], probe: probe).evidence() == nil)
        #expect(!probe.log.all.contains("list processes"))
        #expect(probe.log.all.count < 5)
    }

    @Test func theProcessTableIsScannedWithoutLogind() {
        var probe = FakeSessionProbe()
        insideTmux(&probe, auditSession: 3)
        #expect(RemoteSessionDetector(environment: [:], probe: probe).evidence() == nil)
        #expect(probe.log.all.filter { $0 == "list processes" }.count == 1)
    }
}
