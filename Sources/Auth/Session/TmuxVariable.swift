/// tmux's `TMUX` variable, `SOCKET,SERVER-PID,SESSION`, parsed from the right since the socket
/// path may itself hold commas.
struct TmuxVariable: Sendable, Equatable {
    var socket: String
    var serverID: Int32

    init?(_ value: String?) {
        guard let value, let last = value.lastIndex(of: ","),
            let middle = value[..<last].lastIndex(of: ","),
            let server = Int32(value[value.index(after: middle)..<last])
        else { return nil }
        let socket = String(value[..<middle])
        guard !socket.isEmpty else { return nil }
        self.socket = socket
        serverID = server
    }

    /// `list-clients -F '#{client_pid} #{client_tty}'` output: one client per line.
    static func clients(in output: String) -> [(processID: Int32, terminal: String?)] {
        output.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", maxSplits: 1)
            guard let first = fields.first, let pid = Int32(first), pid > 0 else { return nil }
            return (pid, fields.count > 1 ? String(fields[1]) : nil)
        }
    }
}
