#if canImport(Glibc)
    import Glibc
#endif

/// The session as this machine's `/proc`, `/run/systemd/sessions`, utmp and tmux show it.
public struct SystemSessionProbe: SessionProbe {
    /// tmux gets this long to list its clients; a server that is stopped or wedged must not hold
    /// up an unlock.
    let tmuxTimeout: Duration
    private let procRoot = "/proc"

    public init(tmuxTimeout: Duration = .milliseconds(250)) {
        self.tmuxTimeout = tmuxTimeout
    }

    public var currentProcessID: Int32 { getpid() }
    public var currentUserID: UInt32 { getuid() }

    public func processStatus(_ pid: Int32) -> String? { SmallFile.text("\(procRoot)/\(pid)/stat") }
    public func auditSessionID(_ pid: Int32) -> String? { SmallFile.text("\(procRoot)/\(pid)/sessionid", limit: 64) }
    public func controlGroups(_ pid: Int32) -> String? { SmallFile.text("\(procRoot)/\(pid)/cgroup") }

    public func owner(_ pid: Int32) -> UInt32? {
        var info = stat()
        return stat("\(procRoot)/\(pid)", &info) == 0 ? info.st_uid : nil
    }

    public func logindSession(_ id: String) -> String? {
        guard LogindSession.isValidID(id) else { return nil }
        return SmallFile.text("/run/systemd/sessions/\(id)")
    }

    public func processIDs(limit: Int) -> [Int32] {
        guard let directory = opendir(procRoot) else { return [] }
        defer { closedir(directory) }
        var pids: [Int32] = []
        while pids.count < limit, let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if let pid = Int32(name) { pids.append(pid) }
        }
        return pids
    }

    public func loginRecords() -> [LoginRecord] {
        SmallFile.bytes(UtmpFile.path, limit: UtmpFile.sizeLimit).map(UtmpFile.loginRecords(in:)) ?? []
    }

    public func tmuxClients(socket: String) -> String? {
        guard let tmux = Self.tmuxLocations.first(where: { access($0, X_OK) == 0 }) else { return nil }
        return BoundedCommand(
            executable: tmux, arguments: ["-S", socket, "list-clients", "-F", "#{client_pid} #{client_tty}"], timeout: tmuxTimeout
        ).run()
    }

    /// Where the system installs tmux. `PATH` is not searched: whoever sets it could put a tmux
    /// there that lists no clients. Without tmux here, the detector examines this user's tmux
    /// clients in `/proc` instead.
    static let tmuxLocations = ["/usr/bin/tmux", "/bin/tmux", "/usr/local/bin/tmux"]
}
