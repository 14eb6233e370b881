/// The detector's view of the system. Every read may fail (no `/proc`, `hidepid`, a process that
/// exited, no logind, no utmp): a failure returns nil or nothing, and the detector treats it as "no
/// evidence", never as remote. The real implementation is `SystemSessionProbe`; tests hand in a
/// fake.
public protocol SessionProbe: Sendable {
    /// The process whose session is in question (the caller itself, in the real probe).
    var currentProcessID: Int32 { get }
    /// The real user id of the current process: only that user's multiplexer clients count.
    var currentUserID: UInt32 { get }
    /// Text of `/proc/PID/stat`.
    func processStatus(_ pid: Int32) -> String?
    /// Text of `/proc/PID/sessionid` (the audit session id, which logind uses as its session id).
    func auditSessionID(_ pid: Int32) -> String?
    /// Text of `/proc/PID/cgroup` (logind puts each session's processes in `session-ID.scope`).
    func controlGroups(_ pid: Int32) -> String?
    /// The user owning the process (the owner of `/proc/PID`).
    func owner(_ pid: Int32) -> UInt32?
    /// Text of logind's record of a session, `/run/systemd/sessions/ID`; `id` is alphanumeric.
    func logindSession(_ id: String) -> String?
    /// Running process ids, at most `limit` of them.
    func processIDs(limit: Int) -> [Int32]
    /// The utmp records of logged-in users (`USER_PROCESS`).
    func loginRecords() -> [LoginRecord]
    /// Output of `tmux -S SOCKET list-clients -F '#{client_pid} #{client_tty}'`, or nil when tmux
    /// could not be run, failed, or did not answer within a short time.
    func tmuxClients(socket: String) -> String?
}

/// One utmp record of a login: the terminal, the host it came from, and the process that holds it.
public struct LoginRecord: Sendable, Hashable {
    /// The terminal without `/dev/`, as utmp keeps it: `pts/3`, `tty1`.
    public var line: String
    /// Where the login came from: an address or name for a network login, an X display (`:0`)
    /// or a multiplexer's note (`tmux(1234).%0`, `:pts/3:S.0`) for a local one.
    public var host: String
    public var processID: Int32

    public init(line: String, host: String, processID: Int32) {
        self.line = line
        self.host = host
        self.processID = processID
    }
}
