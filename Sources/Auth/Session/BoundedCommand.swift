import SafeFiles

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a helper program and collects its standard output, giving up after a time limit. Uses
/// `posix_spawn` directly: Foundation's `Process` starts a thread and a run loop, too much for a
/// check made at every unlock inside tmux.
struct BoundedCommand: Sendable {
    var executable: String
    var arguments: [String]
    var timeout: Duration
    var outputLimit = 64 * 1024

    /// The output, or nil when the program could not start, did not exit with status 0, wrote
    /// more than `outputLimit`, or outlived `timeout` (it is then killed).
    func run() -> String? {
        // A socket pair rather than a pipe: it can be made close-on-exec atomically (glibc's
        // `pipe2` is not visible to Swift), so a process another thread starts meanwhile cannot
        // inherit the write end.
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else { return nil }
        let (readEnd, writeEnd) = (ends[0], ends[1])
        defer { close(readEnd) }
        let started = spawn(output: writeEnd)
        close(writeEnd)
        guard let pid = started else { return nil }
        guard let (status, output) = collect(from: readEnd, of: pid, until: ContinuousClock.now.advanced(by: timeout)) else {
            kill(pid, SIGKILL)
            var ignored: Int32 = 0
            while waitpid(pid, &ignored, 0) < 0, errno == EINTR {}
            return nil
        }
        // A wait status of 0 means it exited normally with status 0.
        return status == 0 ? String(decoding: output, as: UTF8.self) : nil
    }

    private func spawn(output: Int32) -> pid_t? {
        // Standard input and error on /dev/null; other descriptors follow their own close-on-exec
        // flag (the helper is short-lived and passes only its standard descriptors on: tmux hands
        // them to its server). A fixed environment: nothing the caller's holds reaches the helper.
        try? ChildProcess.spawn(
            [executable] + arguments, environment: ["PATH": "/usr/bin:/bin", "LC_ALL": "C"],
            redirections: [(nil, 0), (output, 1), (nil, 2)])
    }

    /// Reads until the program exits, then takes what it left in the socket. The exit, not the
    /// end of file, ends the wait: tmux passes its client's standard output to the server, which
    /// may hold it open after the client has gone. Nil while the program is still running (timeout,
    /// a read error, too much output): the caller kills and reaps it.
    private func collect(from descriptor: Int32, of pid: pid_t, until deadline: ContinuousClock.Instant) -> (status: Int32, output: [UInt8])? {
        var output: [UInt8] = []
        var readable = true
        while true {
            if let status = exitStatus(of: pid) {
                while readable, wait(for: descriptor, milliseconds: 0) {
                    guard let more = readChunk(from: descriptor, into: &output) else { return (-1, []) }
                    readable = more
                }
                return (status, output)
            }
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return nil }
            if !readable {
                usleep(1000)
            } else if wait(for: descriptor, milliseconds: Int32(min(10, left.components.seconds * 1000 + 1))) {
                guard let more = readChunk(from: descriptor, into: &output) else { return nil }
                readable = more
            }
        }
    }

    /// The wait status once the program has exited; -1 if it was reaped elsewhere (there is then
    /// nothing left to kill).
    private func exitStatus(of pid: pid_t) -> Int32? {
        var status: Int32 = 0
        while true {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid { return status }
            if reaped == 0 { return nil }
            if errno != EINTR { return -1 }
        }
    }

    private func wait(for descriptor: Int32, milliseconds: Int32) -> Bool {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&poller, 1, milliseconds) > 0
    }

    /// Appends one read's worth; false at end of file, nil on an error or past `outputLimit`.
    private func readChunk(from descriptor: Int32, into output: inout [UInt8]) -> Bool? {
        var chunk = [UInt8](repeating: 0, count: 4096)
        let got = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if got < 0 { return errno == EINTR || errno == EAGAIN ? true : nil }
        output.append(contentsOf: chunk[..<got])
        return output.count > outputLimit ? nil : got > 0
    }
}
