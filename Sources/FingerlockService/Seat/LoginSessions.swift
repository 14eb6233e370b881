import FingerlockProtocol

/// One logind session, as much of it as the seat rule reads.
struct LoginSession: Sendable, Equatable {
    /// logind's id ("3", "c2") and object path.
    var id: String
    var path: String
    var uid: UInt32
    /// A login from the network (sshd, a remote display).
    var remote: Bool
    /// The session in the foreground of its seat, and its `State` ("active", "online", "closing").
    var active: Bool
    var state: String
}

/// Why logind could not be asked.
enum LoginQueryError: Error, Sendable, Equatable {
    /// No system bus can be reached, or no logind is on it: a system without systemd-logind.
    case absent(String)
    /// logind is there but the question failed (a timeout, a refusal, an answer of the wrong shape).
    case failed(String)
}

/// What the seat rule asks logind (org.freedesktop.login1), behind a protocol so the rule's tests
/// can answer in process. One value answers one verdict's questions.
protocol LoginSessions {
    /// The session active on `seat`; nil when none is.
    func activeSession(seat: String) throws(LoginQueryError) -> LoginSession?
    /// The session the process `pid` belongs to; nil when it belongs to none (a process of the
    /// user's service manager, as a desktop's terminal often is).
    func session(ofProcess pid: Int32) throws(LoginQueryError) -> LoginSession?
}

/// The seat rule, written once over what logind says: only the user whose session is active and
/// local at `seat` may scan, and a process that belongs to a session must belong to that one (the
/// same user over ssh, while their desktop session is active at the seat, may not). A process that
/// belongs to no session counts as its user's, as polkit counts it: the uid must still be the one
/// whose session is active at the seat.
struct SeatRule: Sendable {
    var seat: String
    /// Whether a machine without logind (no system bus, or no logind on it) lets every caller scan,
    /// as `fingerlockd --allow-scans-without-logind` asks. Any other failure to ask refuses.
    var allowWithoutLogind: Bool

    func verdict(uid: UInt32, pid: Int32, sessions: any LoginSessions) -> SeatVerdict {
        do throws(LoginQueryError) {
            // pid 0: the caller is in a PID namespace the service cannot see into.
            guard pid > 0 else {
                return .refused(.init(.unknown, "fingerlockd cannot see the calling process (another PID namespace)"))
            }
            let own = try sessions.session(ofProcess: pid)
            if let own, own.remote {
                return .refused(.init(.remote, "fingerlockd: logind session \(own.id) is a remote login"))
            }
            guard let active = try sessions.activeSession(seat: seat), active.active, active.state == "active",
                !active.remote
            else {
                return .refused(.init(.notActive, "fingerlockd: no local session is active at \(seat), the reader's seat"))
            }
            guard active.uid == uid else {
                return .refused(
                    .init(.notActive, "fingerlockd: the session active at \(seat), the reader's seat, is another user's"))
            }
            if let own, own.path != active.path {
                return .refused(
                    .init(.notActive, "fingerlockd: logind session \(own.id) is not the one active at \(seat), the reader's seat"))
            }
            return .allowed
        } catch {
            switch error {
            case .absent(let why):
                if allowWithoutLogind { return .allowed }
                return .refused(
                    .init(
                        .unknown,
                        "fingerlockd cannot ask logind who is at the reader (\(why)), and was not started with "
                            + "--allow-scans-without-logind"))
            case .failed(let why):
                return .refused(.init(.unknown, "fingerlockd could not ask logind who is at the reader (\(why))"))
            }
        }
    }
}
