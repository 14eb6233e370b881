import SystemBus

/// ``LoginSessions`` asked of systemd-logind over the system bus, on one private connection opened
/// at the first question (a few milliseconds; one verdict's questions each time). Blocking: use it
/// off Swift's cooperative pool, on one thread, and let it go after the verdict.
final class LogindSessions: LoginSessions {
    static let service = "org.freedesktop.login1"
    static let manager = "/org/freedesktop/login1"
    private let gio: Result<GioLibrary, SystemBusError>
    private var connection: SystemBusConnection?

    init(gio: Result<GioLibrary, SystemBusError>) { self.gio = gio }

    private func bus() throws(LoginQueryError) -> SystemBusConnection {
        if let connection { return connection }
        do {
            let opened = try SystemBusConnection(gio: gio)
            connection = opened
            return opened
        } catch {
            throw LoginQueryError(error)
        }
    }

    func activeSession(seat: String) throws(LoginQueryError) -> LoginSession? {
        let bus = try bus()
        let seatPath = Self.manager + "/seat/" + Self.escaped(seat)
        let reference = try property(bus, seatPath, "org.freedesktop.login1.Seat", "ActiveSession")
        // (so): the session's id and path; ("", "/") when none is active.
        guard reference.is("(so)"), let id = reference.child(0)?.string, let path = reference.child(1)?.string else {
            throw .failed("the seat's ActiveSession is not (so)")
        }
        if id.isEmpty || path == "/" { return nil }
        return try session(bus, path: path)
    }

    func session(ofProcess pid: Int32) throws(LoginQueryError) -> LoginSession? {
        let bus = try bus()
        let reply: BusVariant
        do {
            reply = try bus.call(
                Self.service, Self.manager, "org.freedesktop.login1.Manager", "GetSessionByPID", [.uint32(UInt32(pid))],
                replyType: "(o)")
        } catch {
            if error.name == "org.freedesktop.login1.NoSessionForPID" { return nil }
            throw error.query
        }
        guard let path = reply.child(0)?.string else { throw .failed("GetSessionByPID's reply is not (o)") }
        return try session(bus, path: path)
    }

    private func session(_ bus: SystemBusConnection, path: String) throws(LoginQueryError) -> LoginSession {
        let interface = "org.freedesktop.login1.Session"
        let user = try property(bus, path, interface, "User")
        guard user.is("(uo)"), let uid = user.child(0)?.uint32 else { throw .failed("the session's User is not (uo)") }
        guard let id = try property(bus, path, interface, "Id").string,
            let remote = try property(bus, path, interface, "Remote").bool,
            let active = try property(bus, path, interface, "Active").bool,
            let state = try property(bus, path, interface, "State").string
        else { throw .failed("the session \(path) has a property of another type than logind's") }
        return LoginSession(id: id, path: path, uid: uid, remote: remote, active: active, state: state)
    }

    /// One property, unwrapped from its variant.
    private func property(_ bus: SystemBusConnection, _ path: String, _ interface: String, _ name: String)
        throws(LoginQueryError) -> BusVariant
    {
        do {
            let reply = try bus.call(
                Self.service, path, "org.freedesktop.DBus.Properties", "Get", [.string(interface), .string(name)],
                replyType: "(v)")
            guard let value = reply.child(0)?.unboxed else { throw LoginQueryError.failed("\(name) came without a value") }
            return value
        } catch let error as BusCallError {
            throw error.query
        } catch let error as LoginQueryError {
            throw error
        } catch {
            throw .failed("\(error)")
        }
    }

    /// A seat name as an object path element: logind escapes every byte outside [A-Za-z0-9] as _XX.
    static func escaped(_ name: String) -> String {
        var path = ""
        for byte in name.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                path.append(Character(UnicodeScalar(byte)))
            default:
                let hex = String(byte, radix: 16)
                path += "_" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return path
    }
}

/// The seat rule over logind: what `fingerlockd` hands the service. Each question runs on a thread
/// of its own, never on Swift's cooperative pool (a D-Bus call blocks for up to 3 s).
public struct LogindSeatAccess: SeatAccess {
    let rule: SeatRule
    /// GIO, opened once here, at the service's start (the executable makes one of these).
    let gio: Result<GioLibrary, SystemBusError>

    /// `seat`: the reader's seat (seat0: the service does not read the reader's udev ID_SEAT).
    /// `allowWithoutLogind`: where no system bus or no logind answers, every caller may scan
    /// (`--allow-scans-without-logind`); otherwise every scan is refused there.
    public init(seat: String = "seat0", allowWithoutLogind: Bool) {
        rule = SeatRule(seat: seat, allowWithoutLogind: allowWithoutLogind)
        gio = GioLibrary.open()
    }

    public func mayScan(uid: UInt32, pid: Int32) async -> SeatVerdict {
        let (rule, gio) = (rule, gio)
        return await withCheckedContinuation { continuation in
            DetachedThread.start {
                continuation.resume(returning: rule.verdict(uid: uid, pid: pid, sessions: LogindSessions(gio: gio)))
            }
        }
    }
}

extension LoginQueryError {
    init(_ error: SystemBusError) {
        switch error {
        case .absent(let reason): self = .absent(reason)
        case .failed(let reason): self = .failed(reason)
        }
    }
}

extension BusCallError {
    /// As the seat rule sees it: a bus without logind is `absent`, anything else `failed`.
    var query: LoginQueryError {
        if serviceMissing { return .absent("no logind on the system bus: \(message)") }
        return .failed(name.isEmpty ? message : "\(name): \(message)")
    }
}
