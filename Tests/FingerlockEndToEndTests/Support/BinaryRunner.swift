import FingerlockCLITestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Runs the built `fingerlock` binary as a user would: in a new session without a controlling
/// terminal (`setsid`), with an explicit environment (nothing inherited, no `SSH_*`).
final class BinaryRunner: Sendable {
    typealias Result = CommandResult

    let dataDirectory: String
    let environment: [String: String]
    /// The runner's own HOME, which holds the data directory; removed with the runner.
    let home: String

    init(extraEnvironment: [String: String] = [:]) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fl-e2e-\(UUID().uuidString)").path
        home = directory
        dataDirectory = directory + "/data"
        environment = [
            "PATH": "/usr/bin:/bin",
            "HOME": directory,
            "FINGERLOCK_DATA_DIR": dataDirectory,
            "LANG": "C.UTF-8",
            // Tests run in parallel as one user: each keeps (and `lock`s) its keys apart.
            "FINGERLOCK_KEYRING_NAMESPACE": "test-\(UUID().uuidString)",
        ].merging(extraEnvironment) { $1 }
        try! FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    /// Takes this test's vault key out of the kernel keyring: a normal user's keyring holds only
    /// 200 keys, and test runs must not fill it. Then the test's vault and home go: a full run
    /// would otherwise leave a couple of hundred directories in /tmp.
    deinit {
        _ = runBlocking(["lock"])
        try? FileManager.default.removeItem(atPath: home)
    }

    /// The `fingerlock` executable built next to this test bundle.
    static var binaryPath: String {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var directory = URL(fileURLWithPath: executable).deletingLastPathComponent()
        // The test binary sits inside `fingerlockPackageTests.xctest` on some layouts.
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("fingerlock").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return directory.appendingPathComponent("fingerlock").path
    }

    /// Starts `fingerlock ARGUMENTS` and returns at once (for tests that kill it midway).
    func start(_ arguments: [String], environment extra: [String: String] = [:], stdin: String = "") throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binaryPath)
        process.arguments = arguments
        process.environment = environment.merging(extra) { $1 }
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        input.fileHandleForWriting.write(Data(stdin.utf8))
        try input.fileHandleForWriting.close()
        return process
    }

    /// Runs `fingerlock ARGUMENTS` with `stdin` as standard input; gives up after `timeout`.
    /// Waits by sleeping, never by blocking a thread: the test runner has only as many threads as
    /// cores, and many of these run at once.
    /// - Parameter launcher: a command the binary is run through (it receives the binary's path and the
    ///   arguments after its own), e.g. one that hides a file in a mount namespace first.
    func run(
        _ arguments: [String], environment extra: [String: String] = [:], stdin: String = "", timeout: Duration = .seconds(60),
        descriptorsFromFiles: [Int32: String] = [:], launcher: [String] = []
    ) async throws -> Result {
        let (process, collected) = try launch(
            arguments, environment: extra, stdin: stdin, descriptorsFromFiles: descriptorsFromFiles, launcher: launcher)
        return try await finish(process, collected, arguments: arguments, timeout: timeout)
    }

    /// Waits for a started run (killing it after `timeout`) and collects what it printed.
    func finish(_ process: Process, _ collected: Collector, arguments: [String], timeout: Duration) async throws -> Result {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while process.isRunning {
            if ContinuousClock.now > deadline {
                kill(process.processIdentifier, SIGKILL)
                Issue.record("fingerlock \(arguments) did not finish within \(timeout)")
                break
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        process.waitUntilExit()
        let (out, err) = collected.finish()
        return Result(status: process.terminationStatus, stdout: out, stderr: err)
    }

    /// The same, blocking (for `deinit`).
    func runBlocking(_ arguments: [String]) -> Int32? {
        guard let (process, collected) = try? launch(arguments, environment: [:], stdin: "", descriptorsFromFiles: [:]) else { return nil }
        process.waitUntilExit()
        _ = collected.finish()
        return process.terminationStatus
    }

    private func launch(
        _ arguments: [String], environment extra: [String: String], stdin: String, descriptorsFromFiles: [Int32: String],
        launcher: [String] = []
    ) throws -> (Process, Collector) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
        if descriptorsFromFiles.isEmpty {
            process.arguments = ["--wait"] + launcher + [Self.binaryPath] + arguments
        } else {
            // Open extra descriptors for the child in a shell (Process passes only 0-2).
            let redirections = descriptorsFromFiles.keys.sorted().map { "\($0)<\"$FL_FD_\($0)\"" }.joined(separator: " ")
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "exec setsid --wait \"$0\" \"$@\" \(redirections)", Self.binaryPath] + arguments
        }
        var extra = extra
        for (fd, path) in descriptorsFromFiles { extra["FL_FD_\(fd)"] = path }
        process.environment = environment.merging(extra) { $1 }
        let input = Pipe()
        let output = Pipe()
        let error = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = error
        try process.run()
        input.fileHandleForWriting.write(Data(stdin.utf8))
        try input.fileHandleForWriting.close()
        return (process, Collector(output: output, error: error))
    }
}

/// Drains both pipes on background threads so a chatty child never blocks on a full pipe.
final class Collector: @unchecked Sendable {
    // Invariant: each buffer is written by exactly one reader thread and read only after `finish`
    // has joined that thread through the group.
    private var out = Data()
    private var err = Data()
    private let group = DispatchGroup()

    init(output: Pipe, error: Pipe) {
        group.enter()
        Thread.detachNewThread { [self] in
            out = output.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        group.enter()
        Thread.detachNewThread { [self] in
            err = error.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
    }

    func finish() -> (String, String) {
        group.wait()
        return (String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }
}

extension BinaryRunner: CommandRunning {
    /// `run` with every argument given (the protocol's shape; no descriptors, no launcher).
    func run(_ arguments: [String], environment: [String: String], stdin: String, timeout: Duration) async throws -> CommandResult {
        try await run(arguments, environment: environment, stdin: stdin, timeout: timeout, descriptorsFromFiles: [:], launcher: [])
    }
}
