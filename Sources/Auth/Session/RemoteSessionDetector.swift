/// Decides whether the person typing may be somewhere other than at the reader, so the fingerprint
/// must be skipped. Any one positive check makes the session remote; a failed read is no evidence.
/// Checks run cheapest first and stop at the first positive; a local session normally costs about
/// ten small file reads.
///
/// Not seen: a program the user has a service start outside the session (`systemd-run --user`,
/// cron, `at`), which leaves both the login's process tree and its audit session; a remote login
/// that neither logind, utmp nor an SSH/mosh server process reveals (a VNC or RDP viewer
/// driving a local desktop, a web terminal); a process table hidden by `hidepid`.
public struct RemoteSessionDetector: Sendable {
    /// Processes that serve a login from the network. `sshd-session` is OpenSSH 9.8 and later.
    static let remoteServerNames: Set<String> = ["sshd", "sshd-session", "dropbear", "mosh-server"]
    static let sshVariables = ["SSH_CONNECTION", "SSH_CLIENT", "SSH_TTY"]
    static let unsetAuditSession = UInt32.max
    /// Scans of the whole process table read at most this many entries.
    static let processLimit = 2048
    static let ancestryLimit = 64

    let environment: [String: String]
    let probe: any SessionProbe

    public init(environment: [String: String], probe: any SessionProbe) {
        self.environment = environment
        self.probe = probe
    }

    /// The one-line reason the fingerprint is skipped, or nil for a local session.
    public func reason() -> String? {
        evidence().map { Self.sentence("\($0)") }
    }

    /// The one line a remote session gets, the CLI's own evidence or fingerlockd's in parentheses.
    public static func sentence(_ evidence: String) -> String {
        "This is a remote (SSH) session (\(evidence)), so the fingerprint is not used: the person at the reader may not be the one typing."
    }

    /// What made the session remote, or nil for a local session.
    public func evidence() -> RemoteEvidence? {
        if let variable = Self.sshVariables.first(where: { !(environment[$0] ?? "").isEmpty }) {
            return .sshVariable(variable)
        }
        let lookup = SessionLookup(probe: probe)
        let own = examine(probe.currentProcessID, in: lookup)
        return own.evidence ?? multiplexerEvidence(ancestors: own.ancestors, in: lookup)
    }

    struct Examination {
        var evidence: RemoteEvidence?
        /// The process and its ancestors as far as they could be read, nearest first.
        var ancestors: [ProcessStatus] = []
    }

    /// Whether one process is in a remote session, by everything but multiplexers: its logind
    /// session, its ancestors, its terminal's utmp login, its audit session's other processes.
    func examine(_ pid: Int32, in lookup: SessionLookup) -> Examination {
        let audit = lookup.auditSession(pid)
        let logind = logindSession(of: pid, audit: audit)
        if let remote = logind, remote.isRemoteLogin {
            return Examination(evidence: .logindSession(id: remote.id, service: remote.service, host: remote.remoteHost))
        }
        let ancestors = ancestry(of: pid, in: lookup)
        if let server = ancestors.first(where: { Self.remoteServerNames.contains($0.name) }) {
            return Examination(evidence: .ancestor(processID: server.processID, name: server.name), ancestors: ancestors)
        }
        if let line = ancestors.first?.terminalLine, let login = lookup.login(on: line), Self.isNetworkHost(login.host) {
            return Examination(evidence: .terminalLogin(line: line, host: login.host), ancestors: ancestors)
        }
        // The whole-table scan is the expensive check, so it runs only where logind has no record:
        // logind's session is the audit session, and its record already says whether it is remote.
        if let audit, logind == nil, let server = serverInAuditSession(audit, besides: pid, in: lookup) {
            return Examination(evidence: .sameLoginSession(processID: server.processID, name: server.name, auditSession: audit), ancestors: ancestors)
        }
        return Examination(ancestors: ancestors)
    }

    /// logind's record of the process's session, found through its audit session id (which
    /// survives a move to another cgroup, as tmux built with systemd support does for its panes)
    /// or else through its cgroup scope (which names logind's id even without audit).
    private func logindSession(of pid: Int32, audit: UInt32?) -> LogindSession? {
        if let audit, let text = probe.logindSession(String(audit)) {
            return LogindSession(id: String(audit), text: text)
        }
        guard let scoped = probe.controlGroups(pid).flatMap(LogindSession.id(inControlGroups:)),
            let text = probe.logindSession(scoped)
        else { return nil }
        return LogindSession(id: scoped, text: text)
    }

    private func ancestry(of pid: Int32, in lookup: SessionLookup) -> [ProcessStatus] {
        var chain: [ProcessStatus] = []
        var next = pid
        while next > 0, chain.count < Self.ancestryLimit, !chain.contains(where: { $0.processID == next }),
            let status = lookup.status(next)
        {
            chain.append(status)
            next = status.parentID
        }
        return chain
    }

    private func serverInAuditSession(_ audit: UInt32, besides pid: Int32, in lookup: SessionLookup) -> ProcessStatus? {
        for other in lookup.processIDs where other != pid && lookup.auditSession(other) == audit {
            if let status = lookup.status(other), Self.remoteServerNames.contains(status.name) { return status }
        }
        return nil
    }

    /// A utmp host names a network peer unless it is empty or one of the notes local programs
    /// leave: an X display (`:0`, `unix:0`), a local screen window (`:pts/3:S.0`), a tmux pane
    /// (`tmux(1234).%0`). A forwarded X display (`localhost:10.0`) comes through SSH, so it counts.
    static func isNetworkHost(_ host: String) -> Bool {
        !(host.isEmpty || host.hasPrefix(":") || host.hasPrefix("unix:") || host.hasPrefix("tmux("))
    }
}
