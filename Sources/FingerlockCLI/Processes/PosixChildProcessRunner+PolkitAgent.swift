import SafeFiles
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// `pkttyagent`, for fprintd's enrollment at a terminal. For this process only (`--process`), and
/// not `--fallback`: polkit takes a fallback agent only for a caller in a logind session, and a
/// terminal without one (a container, `su` without pam_systemd) would then never be asked. A
/// desktop's own agent keeps serving every other process of the session.
extension PosixChildProcessRunner {
    static let pkttyagent = "/usr/bin/pkttyagent"
    /// How long the agent may take to register before the enrollment goes on without it.
    static let agentPatience: Int32 = 3000

    public func startPolkitAgent(environment: [String: String]) -> (any PolkitAgent)? {
        guard access(Self.pkttyagent, X_OK) == 0, let notify = try? Self.socketPair() else { return nil }
        // Descriptor 3 itself would stay close-on-exec through dup2 (a no-op): no agent then.
        guard notify.1 != 3 else {
            close(notify.0)
            close(notify.1)
            return nil
        }
        ChildProcess.closeInheritedDescriptorsOnExec()
        // The agent closes descriptor 3 once it is registered (or exits, when it cannot be). It
        // reads the password from the controlling terminal itself, and writes its prompts there.
        let started = try? ChildProcess.spawn(
            [Self.pkttyagent, "--process", "\(getpid())", "--notify-fd", "3"], environment: environment,
            redirections: [(notify.1, 3)])
        close(notify.1)
        defer { close(notify.0) }
        guard let pid = started else { return nil }
        // Closed (registered, or exited), or not within the patience: it serves as far as it can.
        var waiting = pollfd(fd: notify.0, events: Int16(POLLIN), revents: 0)
        while poll(&waiting, 1, Self.agentPatience) < 0 && errno == EINTR {}
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid { return nil }
        return RunningPolkitAgent(pid: pid)
    }
}

/// A running `pkttyagent`, ended with SIGTERM and reaped, once (a second stop never signals a pid
/// that may have been reused).
final class RunningPolkitAgent: PolkitAgent {
    let pid: pid_t
    private let stopped = Atomic(false)

    init(pid: pid_t) { self.pid = pid }

    func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        kill(pid, SIGTERM)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }
}
