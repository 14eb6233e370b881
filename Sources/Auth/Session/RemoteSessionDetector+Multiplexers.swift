/// Inside tmux or screen, the process descends from the multiplexer's server, which may have been
/// started at the machine and attached later from an SSH session. Whoever is attached can type
/// into the session, so it is remote when any attached client is.
extension RemoteSessionDetector {
    static let tmuxServerName = "tmux: server"
    static let tmuxClientName = "tmux: client"
    static let screenName = "screen"

    func multiplexerEvidence(ancestors: [ProcessStatus], in lookup: SessionLookup) -> RemoteEvidence? {
        let mine = Set(ancestors.map(\.processID))
        if let evidence = tmuxEvidence(ancestors: ancestors, excluding: mine, in: lookup) { return evidence }
        return screenEvidence(ancestors: ancestors, excluding: mine, in: lookup)
    }

    /// tmux's own list of its clients, from the server `TMUX` names. Where tmux cannot answer, or
    /// `TMUX` is missing or names another server than the one the process runs under (the variable
    /// was removed or changed), every tmux client of this user is examined instead.
    private func tmuxEvidence(ancestors: [ProcessStatus], excluding mine: Set<Int32>, in lookup: SessionLookup) -> RemoteEvidence? {
        let server = ancestors.first { $0.name == Self.tmuxServerName }
        let variable = TmuxVariable(environment["TMUX"])
        guard variable != nil || server != nil else { return nil }
        if let variable, server == nil || server?.processID == variable.serverID,
            let output = probe.tmuxClients(socket: variable.socket)
        {
            for client in TmuxVariable.clients(in: output) {
                if let evidence = examine(client.processID, in: lookup).evidence {
                    return .multiplexerClient(multiplexer: "tmux", processID: client.processID, terminal: client.terminal, because: evidence)
                }
            }
            return nil
        }
        return remoteClient(named: Self.tmuxClientName, multiplexer: "tmux", excluding: mine, in: lookup)
    }

    /// screen has no command that lists a session's attached displays, but each attaching
    /// `screen -r`/`-x` process stays alive while attached: every screen process of this user other
    /// than the server (`STY` starts with its pid) is examined. That over-approximates (a remote
    /// attach to another screen session of the same user counts too), never under.
    private func screenEvidence(ancestors: [ProcessStatus], excluding mine: Set<Int32>, in lookup: SessionLookup) -> RemoteEvidence? {
        let variable = environment["STY"] ?? ""
        guard !variable.isEmpty || ancestors.contains(where: { $0.name == Self.screenName }) else { return nil }
        var excluded = mine
        if let server = variable.split(separator: ".").first.flatMap({ Int32($0) }) { excluded.insert(server) }
        return remoteClient(named: Self.screenName, multiplexer: "screen", excluding: excluded, in: lookup)
    }

    private func remoteClient(named name: String, multiplexer: String, excluding excluded: Set<Int32>, in lookup: SessionLookup) -> RemoteEvidence? {
        for pid in lookup.processIDs where !excluded.contains(pid) {
            guard let status = lookup.status(pid), status.name == name, probe.owner(pid) == probe.currentUserID else { continue }
            if let evidence = examine(pid, in: lookup).evidence {
                return .multiplexerClient(
                    multiplexer: multiplexer, processID: pid, terminal: status.terminalLine.map { "/dev/" + $0 }, because: evidence)
            }
        }
        return nil
    }
}
