/// Why a session counts as remote: the first check that said so.
public indirect enum RemoteEvidence: Sendable, Hashable, CustomStringConvertible {
    /// sshd set this variable (`SSH_CONNECTION`, `SSH_CLIENT`, `SSH_TTY`).
    case sshVariable(String)
    /// logind's record of the login session says it is remote or was opened by an SSH daemon.
    case logindSession(id: String, service: String?, host: String?)
    /// A parent, grandparent, … of the process is an SSH or mosh server.
    case ancestor(processID: Int32, name: String)
    /// An SSH or mosh server shares the process's audit login session (it descends from that
    /// login though it was reparented, as daemonised tmux servers are).
    case sameLoginSession(processID: Int32, name: String, auditSession: UInt32)
    /// utmp records the terminal as logged in from a network host.
    case terminalLogin(line: String, host: String)
    /// A client of the tmux or screen server the process runs under is itself remote.
    case multiplexerClient(multiplexer: String, processID: Int32, terminal: String?, because: RemoteEvidence)

    public var description: String {
        switch self {
        case .sshVariable(let name):
            return "\(name) is set"
        case .logindSession(let id, let service, let host):
            let details = [service, host.map { "from \($0)" }].compactMap { $0 }.joined(separator: " ")
            return "logind session \(id) is a remote login" + (details.isEmpty ? "" : ": \(details)")
        case .ancestor(let pid, let name):
            return "it runs under \(name), process \(pid)"
        case .sameLoginSession(let pid, let name, let session):
            return "\(name), process \(pid), is in the same login session (\(session))"
        case .terminalLogin(let line, let host):
            return "\(line) is logged in from \(host)"
        case .multiplexerClient(let multiplexer, let pid, let terminal, let because):
            let on = terminal.map { " on \($0)" } ?? ""
            return "\(multiplexer) client \(pid)\(on) is attached remotely: \(because)"
        }
    }
}
