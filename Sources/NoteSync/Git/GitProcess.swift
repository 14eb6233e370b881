import Foundation
import SafeFiles

#if canImport(Glibc)
    import Glibc
#endif

/// Runs the user's `git` the way sync needs it: no terminal (its own session, stdin a pipe), a
/// fixed environment, a time limit after which git and whatever it started (ssh) are killed, and
/// what it printed kept for the one-line error.
struct GitProcess: Sendable {
    struct Output {
        var status: Int32
        var stdout: [UInt8]
        var stderr: [UInt8]

        /// the first line of git's error output that says what failed, for a one-line message.
        var complaint: String {
            let lines = String(decoding: stderr, as: UTF8.self).split(whereSeparator: \.isNewline)
                .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("hint:") }
            // ssh's own reason ("ssh: Could not resolve hostname …", a forge's "ERROR: …") says more than
            // git's "fatal: Could not read from remote repository." that follows it.
            let line =
                lines.first(where: { $0.hasPrefix("ssh:") || $0.hasPrefix("ERROR:") || $0.contains("Permission denied") })
                ?? lines.first(where: { $0.hasPrefix("fatal:") || $0.hasPrefix("error:") }) ?? lines.last ?? "exit status \(status)"
            return String(line.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7f }.prefix(300).map(Character.init))
        }
    }

    let executable: String
    let environment: [String: String]
    let timeout: Duration

    func run(_ arguments: [String], input: [UInt8] = []) throws(SyncError) -> Output {
        var ends = [[Int32]](repeating: [-1, -1], count: 3)
        for index in 0..<3 {
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends[index]) == 0 else {
                for opened in ends[..<index] {
                    close(opened[0])
                    close(opened[1])
                }
                throw SyncError(.io, "Cannot start git: \(String(cString: strerror(errno))).")
            }
        }
        // Descriptors this process inherited are the executable's to mark close-on-exec before it
        // syncs (the CLI does): marking them here would change a whole test runner's descriptors.
        let started: pid_t
        do {
            started = try ChildProcess.spawn(
                [executable] + arguments, environment: environment,
                redirections: [(ends[0][1], STDIN_FILENO), (ends[1][1], STDOUT_FILENO), (ends[2][1], STDERR_FILENO)], newSession: true)
        } catch {
            for pair in ends {
                close(pair[0])
                close(pair[1])
            }
            throw SyncError(.git, "Cannot run \(executable): \(error.reason). Install git (apt-get install git).")
        }
        for pair in ends { close(pair[1]) }
        defer { for pair in ends { close(pair[0]) } }
        let deadline = ContinuousClock.now.advanced(by: timeout)
        var output = Output(status: -1, stdout: [], stderr: [])
        var offset = 0
        var writing = true
        if input.isEmpty {
            shutdown(ends[0][0], Int32(SHUT_WR))
            writing = false
        }
        var open: Set<Int32> = [ends[1][0], ends[2][0]]
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while !open.isEmpty {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else {
                // git and what it started (ssh, a credential helper) share its session's group.
                kill(-started, SIGKILL)
                kill(started, SIGKILL)
                _ = Self.reap(started)
                throw SyncError(.git, "git \(arguments.first ?? "") did not finish within \(timeout.components.seconds) s; it was stopped.")
            }
            var pollers = open.sorted().map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            if writing { pollers.append(pollfd(fd: ends[0][0], events: Int16(POLLOUT), revents: 0)) }
            let milliseconds = Int32(min(1000, max(1, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)))
            if poll(&pollers, nfds_t(pollers.count), milliseconds) < 0 {
                if errno == EINTR { continue }
                break
            }
            for poller in pollers where poller.revents != 0 {
                if poller.fd == ends[0][0] {
                    let sent = input.withUnsafeBytes {
                        send(poller.fd, $0.baseAddress! + offset, min($0.count - offset, 64 * 1024), Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
                    }
                    if sent > 0 { offset += sent }
                    if offset >= input.count || (sent < 0 && errno != EINTR && errno != EAGAIN) {
                        shutdown(poller.fd, Int32(SHUT_WR))
                        writing = false
                    }
                    continue
                }
                let got = chunk.withUnsafeMutableBytes { read(poller.fd, $0.baseAddress, $0.count) }
                if got < 0, errno == EINTR || errno == EAGAIN { continue }
                if got <= 0 {
                    open.remove(poller.fd)
                } else if poller.fd == ends[1][0] {
                    output.stdout.append(contentsOf: chunk[..<got])
                } else if output.stderr.count < 64 * 1024 {
                    output.stderr.append(contentsOf: chunk[..<got])
                }
            }
        }
        output.status = Self.reap(started)
        return output
    }

    /// The exit status, -1 when killed by a signal.
    private static func reap(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { return -1 }
        }
        return status & 0x7f == 0 ? (status >> 8) & 0xff : -1
    }
}
