import FingerlockCLITestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A real X server (Xvfb) on a free display, for the clipboard tests; stopped when released. CI
/// installs Xvfb, so a missing one is a failure, never a skip.
final class XvfbServer: Sendable {
    let display: String
    private let pid: pid_t

    init() async throws {
        let executable = "/usr/bin/Xvfb"
        try #require(FileManager.default.isExecutableFile(atPath: executable), "Xvfb is missing: .ci/install-deps installs xvfb")
        // A display nobody uses: no socket and no lock file; random, as tests run in parallel.
        var number = 0
        for _ in 0..<100 {
            let candidate = Int.random(in: 100..<1000)
            if !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(candidate)"),
                !FileManager.default.fileExists(atPath: "/tmp/.X\(candidate)-lock")
            {
                number = candidate
                break
            }
        }
        try #require(number != 0, "no free X display")
        display = ":\(number)"
        pid = try #require(Self.spawn([executable, display, "-nolisten", "tcp", "-screen", "0", "320x240x24"]), "Xvfb did not start")
        let deadline = ContinuousClock.now.advanced(by: .seconds(15))
        while !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)") {
            var status: Int32 = 0
            try #require(waitpid(pid, &status, WNOHANG) == 0, "Xvfb \(display) exited at start")
            try #require(ContinuousClock.now < deadline, "Xvfb \(display) did not start")
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    deinit {
        // Its clients (xclip keeping a selection) end with it; SIGTERM lets it remove its lock file.
        kill(pid, SIGTERM)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }

    /// posix_spawn with an empty signal mask: Foundation's `Process` passes on the test runner's
    /// blocked signals, and an Xvfb started so ignores the SIGTERM that should stop it.
    private static func spawn(_ arguments: [String]) -> pid_t? {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for descriptor: Int32 in [0, 1, 2] {
            posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var signals = sigset_t()
        sigemptyset(&signals)
        posix_spawnattr_setsigmask(&attributes, &signals)
        sigfillset(&signals)
        posix_spawnattr_setsigdefault(&attributes, &signals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = [strdup("PATH=/usr/bin:/bin"), nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        return posix_spawn(&pid, arguments[0], &actions, &attributes, argv, envp) == 0 ? pid : nil
    }

    /// The CLIPBOARD selection as `xclip -o` reads it; nil when nobody holds it.
    func clipboard() throws -> String? {
        let (status, output) = try #require(xclip(["-selection", "clipboard", "-o"], input: nil))
        return status == 0 ? String(decoding: output, as: UTF8.self) : nil
    }

    /// Puts `text` on the CLIPBOARD as another program would.
    func copy(_ text: String) throws {
        #expect(try #require(xclip(["-selection", "clipboard"], input: Array(text.utf8))).status == 0)
    }

    /// Runs xclip on this display with `input` on stdin (else /dev/null); its stdout is read only
    /// when there is no input: a copying xclip stays in the background holding the selection, and
    /// must not hold our descriptors. Foundation's `Process` is not used: it was seen never to
    /// notice such an xclip exit.
    private func xclip(_ arguments: [String], input: [UInt8]?) -> (status: Int32, output: [UInt8])? {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else { return nil }
        defer { close(ends[0]) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if input == nil {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
        } else {
            posix_spawn_file_actions_adddup2(&actions, ends[1], 0)
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        }
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv: [UnsafeMutablePointer<CChar>?] = (["/usr/bin/xclip"] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = [strdup("DISPLAY=\(display)"), strdup("PATH=/usr/bin:/bin"), nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var child: pid_t = 0
        let started = posix_spawn(&child, "/usr/bin/xclip", &actions, nil, argv, envp) == 0
        close(ends[1])
        guard started else { return nil }
        var output: [UInt8] = []
        if let input {
            _ = input.withUnsafeBytes { send(ends[0], $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            shutdown(ends[0], Int32(SHUT_WR))
        } else {
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let got = chunk.withUnsafeMutableBytes { read(ends[0], $0.baseAddress, $0.count) }
                if got < 0 && errno == EINTR { continue }
                if got <= 0 { break }
                output += chunk[..<got]
            }
        }
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        return (status & 0x7f == 0 ? (status >> 8) & 0xff : -1, output)
    }
}
