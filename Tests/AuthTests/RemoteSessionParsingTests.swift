import FingerlockTestSupport
import Glibc
import Testing

@testable import Auth

@Suite(.timed) struct RemoteSessionParsingTests {
    @Test func processStatusNamesMayHoldSpacesAndParentheses() throws {
        let status = try #require(ProcessStatus("500 (tmux: server) S 1 500 500 34817 -1 4194560 1 0"))
        #expect(status == ProcessStatus("500 (tmux: server) S 1 500 500 34817 -1 4194560 1 0"))
        #expect(status.name == "tmux: server")
        #expect(status.parentID == 1)
        #expect(status.terminalLine == "pts/1")
        #expect(ProcessStatus("7 (a) b) (c) R 3 7 7 0 -1")?.name == "a) b) (c")
        #expect(ProcessStatus("7 (a) b) (c) R 3 7 7 0 -1")?.parentID == 3)
        #expect(ProcessStatus("garbage") == nil)
        #expect(ProcessStatus("7 (x) R") == nil)
    }

    @Test(arguments: [
        (Int32(0), String?.none), (0x8800, "pts/0"), (0x8801, "pts/1"), (0x892c, "pts/300"),
        (0x8800 | (0x100 << 12), "pts/256"), (0x0402, "tty2"), (0x0440, nil), (0x0501, nil),
    ])
    func terminalsAreNamedAsUtmpNamesThem(device: Int32, line: String?) {
        #expect(ProcessStatus.line(ofDevice: device) == line)
    }

    @Test func logindRecordsAreReadAsKeyValueLines() {
        let remote = LogindSession(id: "3", text: "# This is private data. Do not parse.\nUID=1000\nREMOTE=1\nREMOTE_HOST=192.0.2.7\nSERVICE=sshd\n")
        #expect(remote.isRemoteLogin && remote.isRemote)
        #expect(remote.remoteHost == "192.0.2.7")
        let local = LogindSession(id: "2", text: "REMOTE=0\nREMOTE_HOST=\nSERVICE=gdm-password\nTYPE=wayland\n")
        #expect(!local.isRemoteLogin)
        #expect(local.remoteHost == nil)
        #expect(!LogindSession(id: "4", text: "").isRemoteLogin)
        #expect(LogindSession(id: "5", text: "SERVICE=dropbear\n").isRemoteLogin)
    }

    @Test func sessionIDsComeFromTheSessionScope() {
        #expect(LogindSession.id(inControlGroups: "0::/user.slice/user-1000.slice/session-3.scope\n") == "3")
        #expect(LogindSession.id(inControlGroups: "12:pids:/\n1:name=systemd:/user.slice/user-1000.slice/session-c7.scope\n0::/\n") == "c7")
        #expect(LogindSession.id(inControlGroups: "0::/user.slice/user-1000.slice/user@1000.service/app.slice/x.scope\n") == nil)
        #expect(LogindSession.id(inControlGroups: "0::/session-../x.scope/session-.scope\n") == nil)
        #expect(!LogindSession.isValidID("../../etc"))
    }

    @Test func theTmuxVariableIsSplitFromTheRight() {
        #expect(TmuxVariable("/tmp/tmux-1000/default,4242,3")?.socket == "/tmp/tmux-1000/default")
        #expect(TmuxVariable("/tmp/tmux-1000/default,4242,3")?.serverID == 4242)
        #expect(TmuxVariable("/tmp/a,b/sock,17,0")?.socket == "/tmp/a,b/sock")
        #expect(TmuxVariable("/tmp/sock") == nil)
        #expect(TmuxVariable(",17,0") == nil)
        #expect(TmuxVariable(nil) == nil)
        let clients = TmuxVariable.clients(in: "600 /dev/pts/0\n700 /dev/pts/3\nnonsense\n0 /dev/pts/9\n")
        #expect(clients.map(\.processID) == [600, 700])
        #expect(clients.map(\.terminal) == ["/dev/pts/0", "/dev/pts/3"])
    }

    @Test(arguments: [
        ("192.0.2.7", true), ("host.example", true), ("localhost:10.0", true), ("mosh [1234]", true),
        ("", false), (":0", false), (":1.0", false), ("unix:0", false), ("tmux(1234).%0", false), (":pts/3:S.0", false),
    ])
    func onlyNetworkHostsAreRemote(host: String, remote: Bool) {
        #expect(RemoteSessionDetector.isNetworkHost(host) == remote)
    }

    @Test func utmpIsReadInGlibcsLayout() {
        func record(type: Int32, line: String, host: String, pid: Int32) -> [UInt8] {
            var entry = utmpx()
            entry.ut_type = Int16(type)
            entry.ut_pid = pid
            withUnsafeMutableBytes(of: &entry.ut_line) { $0.copyBytes(from: line.utf8.prefix($0.count)) }
            withUnsafeMutableBytes(of: &entry.ut_host) { $0.copyBytes(from: host.utf8.prefix($0.count)) }
            return withUnsafeBytes(of: entry) { Array($0) }
        }
        let full = String(repeating: "x", count: 32)
        let bytes =
            record(type: BOOT_TIME, line: "~", host: "6.1.0", pid: 0)
            + record(type: USER_PROCESS, line: "pts/4", host: "192.0.2.7", pid: 812)
            + record(type: DEAD_PROCESS, line: "pts/5", host: "192.0.2.8", pid: 813)
            + record(type: USER_PROCESS, line: full, host: ":0", pid: 814)
            + [1, 2, 3]
        #expect(
            UtmpFile.loginRecords(in: bytes) == [
                LoginRecord(line: "pts/4", host: "192.0.2.7", processID: 812), LoginRecord(line: full, host: ":0", processID: 814),
            ])
        #expect(UtmpFile.loginRecords(in: []) == [])
    }

    @Test func aHelperCommandIsCollectedOrGivenUpOn() {
        #expect(BoundedCommand(executable: "/bin/sh", arguments: ["-c", "echo 600 /dev/pts/0"], timeout: .seconds(5)).run() == "600 /dev/pts/0\n")
        #expect(BoundedCommand(executable: "/bin/sh", arguments: ["-c", "echo partial; exit 1"], timeout: .seconds(5)).run() == nil)
        #expect(BoundedCommand(executable: "/nonexistent/tmux", arguments: [], timeout: .seconds(5)).run() == nil)
        let started = ContinuousClock.now
        #expect(BoundedCommand(executable: "/bin/sh", arguments: ["-c", "sleep 20"], timeout: .milliseconds(100)).run() == nil)
        #expect(BoundedCommand(executable: "/bin/sh", arguments: ["-c", "exec >&-; sleep 20"], timeout: .milliseconds(100)).run() == nil)
        #expect(ContinuousClock.now - started < .seconds(10))
        #expect(BoundedCommand(executable: "/bin/sh", arguments: ["-c", "yes"], timeout: .seconds(5), outputLimit: 1000).run() == nil)
    }
}
