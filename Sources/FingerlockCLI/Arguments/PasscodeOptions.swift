import ArgumentParser

#if canImport(Glibc)
    import Glibc
#endif

/// Where passcodes come from when not from the terminal. Never argv, never the environment.
struct PasscodeOptions: ParsableArguments {
    @Flag(
        name: .customLong("passcode-stdin"),
        help: "Read passcodes from stdin, one per line (skips the reader).")
    var passcodeStdin = false

    @Option(
        name: .customLong("passcode-fd"),
        help: ArgumentHelp("Read passcodes from this open file descriptor, one per line (skips the reader).", valueName: "n"))
    var passcodeFD: Int32?

    func validate() throws {
        if let problem = Self.problem(stdin: passcodeStdin, fd: passcodeFD) { throw ValidationError(problem) }
    }

    /// What is wrong with this choice of passcode source, or nil (shared with `verify`'s fast parser).
    static func problem(stdin: Bool, fd: Int32?) -> String? {
        if stdin && fd != nil { return "Use either --passcode-stdin or --passcode-fd, not both." }
        guard let fd else { return nil }
        if fd < 0 { return "--passcode-fd takes a file descriptor number (0 or more)." }
        // Only a descriptor this process inherited: those never have close-on-exec (exec closes the
        // ones that do). By now the runtime has opened its own (libdispatch's epoll, eventfd and
        // timerfd, all close-on-exec, often 3 to 5): reading a passcode from them is never meant.
        let flags = fcntl(fd, F_GETFD)
        if flags < 0 || flags & FD_CLOEXEC != 0 { return "--passcode-fd \(fd): that descriptor is not open." }
        return nil
    }

    /// `--passcode-stdin` and `--passcode-fd TEXT` as the fast parsers (`VerifyRequest`,
    /// `ListRequest`) read them: `.some(descriptor)`, the descriptor being nil for the terminal, or
    /// nil when ArgumentParser or `validate()` would refuse them (theirs to report).
    static func fastDescriptor(stdin: Bool, fdText: String?) -> Int32?? {
        var fd: Int32?
        if let fdText {
            guard let number = Int32(fdText) else { return nil }
            fd = number
        }
        guard problem(stdin: stdin, fd: fd) == nil else { return nil }
        return .some(stdin ? 0 : fd)
    }

    /// Whether `fd` reads the same file as stdin (`--passcode-fd 0`, or a duplicate of it).
    static func isStandardInput(_ fd: Int32) -> Bool {
        if fd == STDIN_FILENO { return true }
        var a = stat()
        var b = stat()
        guard fstat(fd, &a) == 0, fstat(STDIN_FILENO, &b) == 0 else { return false }
        return a.st_dev == b.st_dev && a.st_ino == b.st_ino
    }

    var descriptor: Int32? { passcodeStdin ? 0 : passcodeFD }
}
