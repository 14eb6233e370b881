import SafeFiles

#if canImport(Glibc)
    import Glibc
#endif

/// The real `ChildProcessRunner`: `posix_spawn` with socket pairs for stdio (they can be made
/// close-on-exec atomically; glibc's `pipe2` is not visible to Swift).
public struct PosixChildProcessRunner: ChildProcessRunner {
    public init() {}

    /// The most of stderr kept: only its first line is ever shown.
    static let errorLimit = 64 * 1024

    public func capture(_ executable: String, _ arguments: [String], environment: [String: String], outputLimit: Int) throws
        -> ChildProcessOutput
    {
        let out = try Self.socketPair()
        let err: (Int32, Int32)
        do { err = try Self.socketPair() } catch {
            close(out.0)
            close(out.1)
            throw error
        }
        let started = Self.spawn(executable, arguments, environment, stdin: nil, stdout: out.1, stderr: err.1, newSession: false)
        close(out.1)
        close(err.1)
        defer {
            close(out.0)
            close(err.0)
        }
        let pid = try started.get(executable)
        var stdout: [UInt8] = []
        var stderr: [UInt8] = []
        var open: [(fd: Int32, isOut: Bool)] = [(out.0, true), (err.0, false)]
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var exceededLimit = false
        reading: while !open.isEmpty {
            var pollers = open.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            if poll(&pollers, nfds_t(pollers.count), -1) < 0 {
                if errno == EINTR { continue }
                break
            }
            for (index, poller) in pollers.enumerated().reversed() where poller.revents != 0 {
                let got = chunk.withUnsafeMutableBytes { read(poller.fd, $0.baseAddress, $0.count) }
                if got < 0, errno == EINTR || errno == EAGAIN { continue }
                if got <= 0 {
                    open.remove(at: index)
                } else if open[index].isOut {
                    stdout.append(contentsOf: chunk[..<min(got, outputLimit + 1 - stdout.count)])
                    if stdout.count > outputLimit {
                        // No more is read: a program that never stops writing cannot fill memory.
                        exceededLimit = true
                        kill(pid, SIGKILL)
                        break reading
                    }
                } else {
                    stderr.append(contentsOf: chunk[..<min(got, Self.errorLimit - min(stderr.count, Self.errorLimit))])
                }
            }
        }
        // The buffer held decrypted text: overwrite it before it is freed.
        chunk.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) }
        if exceededLimit {
            // Nothing past the limit is kept, and none of it is handed on.
            stdout.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) }
            stdout = []
        }
        return ChildProcessOutput(status: Self.waitForExit(pid), stdout: stdout, stderr: stderr, exceededLimit: exceededLimit)
    }

    public func feed(_ executable: String, _ arguments: [String], environment: [String: String], input: [UInt8]) throws -> Int32 {
        let pipe = try Self.socketPair()
        let started = Self.spawn(executable, arguments, environment, stdin: pipe.1, stdout: nil, stderr: nil, newSession: false)
        close(pipe.1)
        defer { close(pipe.0) }
        let pid = try started.get(executable)
        Self.send(input, to: pipe.0)
        return Self.waitForExit(pid)
    }

    public func choose(_ executable: String, _ arguments: [String], environment: [String: String], input: [UInt8], outputLimit: Int)
        throws -> ChildProcessOutput
    {
        let into = try Self.socketPair()
        let out: (Int32, Int32)
        do { out = try Self.socketPair() } catch {
            close(into.0)
            close(into.1)
            throw error
        }
        let started = Self.spawn(executable, arguments, environment, stdin: into.1, stdout: out.1, stderr: STDERR_FILENO, newSession: false)
        close(into.1)
        close(out.1)
        var writing: Int32? = into.0
        defer {
            if let writing { close(writing) }
            close(out.0)
        }
        let pid = try started.get(executable)
        var offset = 0
        var stdout: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var exceededLimit = false
        if input.isEmpty, let descriptor = writing {
            shutdown(descriptor, Int32(SHUT_WR))
        }
        while true {
            var pollers = [pollfd(fd: out.0, events: Int16(POLLIN), revents: 0)]
            if let writing, offset < input.count { pollers.append(pollfd(fd: writing, events: Int16(POLLOUT), revents: 0)) }
            if poll(&pollers, nfds_t(pollers.count), -1) < 0 {
                if errno == EINTR { continue }
                break
            }
            if pollers.count > 1, pollers[1].revents != 0, let descriptor = writing {
                let sent = input.withUnsafeBytes {
                    Glibc.send(descriptor, $0.baseAddress! + offset, min($0.count - offset, 64 * 1024), Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
                }
                if sent > 0 { offset += sent }
                // Everything sent, or the picker stopped reading: its input ends here.
                if offset >= input.count || (sent < 0 && errno != EINTR && errno != EAGAIN) {
                    shutdown(descriptor, Int32(SHUT_WR))
                    close(descriptor)
                    writing = nil
                    offset = input.count
                }
            }
            guard pollers[0].revents != 0 else { continue }
            let got = chunk.withUnsafeMutableBytes { read(out.0, $0.baseAddress, $0.count) }
            if got < 0, errno == EINTR || errno == EAGAIN { continue }
            if got <= 0 { break }
            stdout.append(contentsOf: chunk[..<min(got, outputLimit + 1 - stdout.count)])
            if stdout.count > outputLimit {
                exceededLimit = true
                kill(pid, SIGKILL)
                stdout = []
                break
            }
        }
        return ChildProcessOutput(status: Self.waitForExit(pid), stdout: stdout, stderr: [], exceededLimit: exceededLimit)
    }

    public func detach(_ executable: String, _ arguments: [String], environment: [String: String], input: [UInt8]) throws {
        let pipe = try Self.socketPair()
        let started = Self.spawn(executable, arguments, environment, stdin: pipe.1, stdout: nil, stderr: nil, newSession: true)
        close(pipe.1)
        defer { close(pipe.0) }
        _ = try started.get(executable)
        Self.send(input, to: pipe.0)
        // Not reaped: this process exits soon, and the child then belongs to init.
    }

    // MARK: - Plumbing

    /// One end for us (index 0) and one for the child (index 1), both close-on-exec.
    static func socketPair() throws -> (Int32, Int32) {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            throw CLIError(.dataError, "Cannot create a pipe: \(String(cString: strerror(errno))).")
        }
        return (ends[0], ends[1])
    }

    /// Writes all of `bytes` (without SIGPIPE if the reader is gone), then ends the stream.
    private static func send(_ bytes: [UInt8], to descriptor: Int32) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if sent < 0 {
                if errno == EINTR { continue }
                break
            }
            offset += sent
        }
        shutdown(descriptor, Int32(SHUT_WR))
    }

    private enum Started {
        case running(pid_t)
        case failed(Int32)

        func get(_ executable: String) throws -> pid_t {
            switch self {
            case .running(let pid): return pid
            case .failed(let code): throw CLIError(.dataError, "Cannot start \(executable): \(String(cString: strerror(code))).")
            }
        }
    }

    /// Starts the program with the given descriptors as stdin, stdout and stderr (`/dev/null`
    /// where nil); see `ChildProcess.spawn`.
    private static func spawn(
        _ executable: String, _ arguments: [String], _ environment: [String: String], stdin: Int32?, stdout: Int32?, stderr: Int32?,
        newSession: Bool
    ) -> Started {
        ChildProcess.closeInheritedDescriptorsOnExec()
        do {
            return .running(
                try ChildProcess.spawn(
                    [executable] + arguments, environment: environment,
                    redirections: [(stdin, STDIN_FILENO), (stdout, STDOUT_FILENO), (stderr, STDERR_FILENO)], newSession: newSession))
        } catch {
            return .failed(error.code)
        }
    }

    /// The exit status, -1 when killed by a signal.
    private static func waitForExit(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { return -1 }
        }
        // WIFEXITED / WEXITSTATUS, which Swift does not import as macros.
        return status & 0x7f == 0 ? (status >> 8) & 0xff : -1
    }
}
