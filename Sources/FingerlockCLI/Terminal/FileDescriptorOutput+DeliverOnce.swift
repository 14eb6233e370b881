#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Output that exists nowhere else (a new recovery key) must be known to have arrived before the change
/// it belongs to is made. A write that succeeds is not enough: /dev/null takes everything, and a pipe
/// takes bytes into its buffer that a reader who then quits never sees.
extension FileDescriptorOutput {
    public var losesOutput: String? {
        var info = stat()
        // A closed stdout was given /dev/null read-only (`ProcessHardening`): writes to it would fail.
        let flags = fcntl(fd, F_GETFL)
        guard fstat(fd, &info) == 0, flags >= 0, flags & O_ACCMODE != O_RDONLY else { return "stdout is closed" }
        switch info.st_mode & S_IFMT {
        case S_IFCHR where Self.isMemoryDevice(info.st_rdev):
            return "stdout is \(Self.memoryDeviceName(info.st_rdev)), which keeps nothing"
        case S_IFIFO, S_IFSOCK:
            // With no reader left, a pipe's write end polls as an error (a socket's as hung up).
            var descriptor = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            if poll(&descriptor, 1, 0) > 0, descriptor.revents & Int16(POLLERR | POLLHUP) != 0 {
                return "stdout is a pipe nobody reads"
            }
            return nil
        default:
            return nil
        }
    }

    /// Checks the destination, writes (EPIPE is an error here, not death by SIGPIPE, so the caller
    /// can say nothing was changed) and, into a pipe, waits until the reader has taken every byte:
    /// a reader that quits first (`| true`, `| head -c0`) loses the text, and that is reported.
    public func deliverOnce(_ text: String) throws(CLIError) {
        if let problem = losesOutput { throw CLIError(.dataError, "Cannot write the output: \(problem).") }
        var ignore = sigaction()
        ignore.__sigaction_handler.sa_handler = SIG_IGN
        var previous = sigaction()
        sigaction(SIGPIPE, &ignore, &previous)
        defer { sigaction(SIGPIPE, &previous, nil) }
        try writeChecked(text)
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFIFO else { return }
        while true {
            var unread: Int32 = 0
            // FIONREAD on either end of a pipe: the bytes written and not yet read.
            guard ioctl(fd, UInt(FIONREAD), &unread) == 0 else { return }
            if unread == 0 { return }
            var descriptor = pollfd(fd: fd, events: 0, revents: 0)
            if poll(&descriptor, 1, 20) > 0, descriptor.revents & Int16(POLLERR | POLLHUP) != 0 {
                throw CLIError(.dataError, "Cannot write the output: the program reading stdout quit before reading it.")
            }
        }
    }

    /// Major 1: /dev/null, /dev/zero, /dev/full, /dev/random and the other memory devices: nothing written
    /// there is kept (or it fails).
    private static func isMemoryDevice(_ device: dev_t) -> Bool { major(device) == 1 }

    private static func memoryDeviceName(_ device: dev_t) -> String {
        switch minor(device) {
        case 3: "/dev/null"
        case 5: "/dev/zero"
        case 7: "/dev/full"
        default: "a memory device (major 1)"
        }
    }

    // glibc's encoding of dev_t (major and minor split across the high and low bits).
    private static func major(_ device: dev_t) -> UInt64 { (UInt64(device) >> 8 & 0xfff) | (UInt64(device) >> 32 & ~0xfff) }
    private static func minor(_ device: dev_t) -> UInt64 { (UInt64(device) & 0xff) | (UInt64(device) >> 12 & ~0xff) }
}
