#if canImport(Glibc)
    import Glibc
#endif

/// Keeps notes and keys held in this process (the CLI's or fingerlockd's)'s memory out of core dumps and away from other
/// processes of the same user.
public enum ProcessHardening {
    public static func apply() {
        var noCoreDumps = rlimit(rlim_cur: 0, rlim_max: 0)
        _ = setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &noCoreDumps)
        // RLIMIT_CORE does not bind a core_pattern pipe handler; not being dumpable does, and it also
        // stops ptrace and /proc/PID/mem reads by the user's other processes.
        _ = prctl(setDumpable, 0)
        reserveStandardDescriptors()
    }

    /// A closed stdin, stdout or stderr is given /dev/null opened read-only: nothing opened later
    /// can take its number (and receive output meant for the terminal), and writes to it fail with
    /// EBADF, so output that is lost is reported as lost.
    static func reserveStandardDescriptors() {
        for fd in Int32(0)...2 where fcntl(fd, F_GETFD) == -1 && errno == EBADF {
            let opened = open("/dev/null", O_RDONLY)
            if opened >= 0 && opened != fd {
                _ = dup2(opened, fd)
                _ = close(opened)
            }
        }
    }

    /// The pid of the process tracing this one (`TracerPid` in /proc/self/status): 0 when none, nil
    /// when the kernel does not say. Not being dumpable stops new tracers only: one that attached
    /// before `apply()` stays attached and can read everything the process holds afterwards.
    public static func tracerPID() -> Int32? {
        guard let file = fopen("/proc/self/status", "re") else { return nil }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard text.hasPrefix("TracerPid:") else { continue }
            return Int32(text.dropFirst("TracerPid:".count).trimmingPrefix(while: { $0 == " " || $0 == "\t" }).prefix { $0.isNumber })
        }
        return nil
    }

    /// Whether the process may be dumped (PR_GET_DUMPABLE).
    public static var isDumpable: Bool { prctl(getDumpable, 0) != 0 }

    private static let getDumpable: Int32 = 3
    private static let setDumpable: Int32 = 4

    // prctl is variadic in C, so Swift cannot import it; glibc's is a plain five-argument syscall
    // wrapper, called here through its address.
    private static func prctl(_ option: Int32, _ argument: UInt) -> Int32 {
        typealias Prctl = @convention(c) (Int32, UInt, UInt, UInt, UInt) -> Int32
        guard let address = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "prctl") else { return -1 }
        return unsafeBitCast(address, to: Prctl.self)(option, argument, 0, 0, 0)
    }
}
