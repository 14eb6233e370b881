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
