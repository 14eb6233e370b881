#if canImport(Glibc)
    public import Glibc
#endif

/// Starting a program as a shell would: the one `posix_spawn` of the package, for the programs the
/// user chose (an editor, a pager, `pass`) and the helpers the policy asks (`tmux`, `loginctl`).
public enum ChildProcess {
    /// Why a program could not be started (an errno value).
    public struct SpawnFailure: Error {
        public let code: Int32
        public var reason: String { String(cString: strerror(code)) }
    }

    /// Starts `arguments` (the first is the program's path) with each `(source, target)` of
    /// `redirections` duplicated onto `target` (`/dev/null` where the source is nil), in a new
    /// session when asked, with an empty signal mask and every disposition back to its default:
    /// Swift's worker threads run with signals blocked, and a spawned program inherits the mask.
    public static func spawn(
        _ arguments: [String], environment: [String: String], redirections: [(source: Int32?, target: Int32)],
        newSession: Bool = false
    ) throws(SpawnFailure) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (source, target) in redirections {
            if let source {
                posix_spawn_file_actions_adddup2(&actions, source, target)
            } else {
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == STDIN_FILENO ? O_RDONLY : O_WRONLY, 0)
            }
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var signals = sigset_t()
        sigfillset(&signals)
        posix_spawnattr_setsigdefault(&attributes, &signals)
        sigemptyset(&signals)
        posix_spawnattr_setsigmask(&attributes, &signals)
        var flags = Int32(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK)
        if newSession { flags |= spawnSetSID }
        posix_spawnattr_setflags(&attributes, Int16(flags))
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, envp)
        guard result == 0 else { throw SpawnFailure(code: result) }
        return pid
    }

    /// Descriptors this process inherited (a `--passcode-fd`, whatever the shell left open) must
    /// not reach a helper, least of all the clearer that outlives us and would hold them open. No
    /// `closefrom` action is visible to Swift, so they are marked close-on-exec before spawning;
    /// fingerlock itself never hands a descriptor to a program through exec.
    public static func closeInheritedDescriptorsOnExec() {
        guard let directory = opendir("/proc/self/fd") else { return }
        defer { closedir(directory) }
        let own = dirfd(directory)
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let fd = Int32(name), fd > STDERR_FILENO, fd != own else { continue }
            let flags = fcntl(fd, F_GETFD)
            if flags >= 0 && flags & FD_CLOEXEC == 0 { _ = fcntl(fd, F_SETFD, flags | FD_CLOEXEC) }
        }
    }

    /// glibc's `POSIX_SPAWN_SETSID` (spawn.h, since 2.26); not visible to Swift without _GNU_SOURCE.
    private static let spawnSetSID: Int32 = 0x80
}
