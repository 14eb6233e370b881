/// One detection's reads of the process table, remembered for the length of that detection: the
/// checks for the process and for each multiplexer client ask about the same processes again.
final class SessionLookup {
    let probe: any SessionProbe
    private var statuses: [Int32: ProcessStatus?] = [:]
    private var auditSessions: [Int32: UInt32?] = [:]
    private lazy var logins: [LoginRecord] = probe.loginRecords()
    private(set) lazy var processIDs: [Int32] = probe.processIDs(limit: RemoteSessionDetector.processLimit)

    init(probe: any SessionProbe) {
        self.probe = probe
    }

    func status(_ pid: Int32) -> ProcessStatus? {
        if let known = statuses[pid] { return known }
        let status = probe.processStatus(pid).flatMap(ProcessStatus.init)
        statuses[pid] = status
        return status
    }

    /// The audit session id, nil when unreadable or unset (4294967295: not a login, such as a
    /// daemon started at boot).
    func auditSession(_ pid: Int32) -> UInt32? {
        if let known = auditSessions[pid] { return known }
        let id = probe.auditSessionID(pid)
            .flatMap { DecimalField.parse($0, as: UInt32.self) }
            .flatMap { $0 == RemoteSessionDetector.unsetAuditSession ? nil : $0 }
        auditSessions[pid] = id
        return id
    }

    /// The live login on this terminal line: utmp keeps records of dead logins whose process is
    /// gone, and a recycled pseudo-terminal must not inherit an old SSH login's host.
    func login(on line: String) -> LoginRecord? {
        logins.last { $0.line == line && status($0.processID) != nil }
    }
}
