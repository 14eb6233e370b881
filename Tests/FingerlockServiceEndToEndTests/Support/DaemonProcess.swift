import FingerlockServiceTestSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The built `fingerlockd`, run as a child process (optionally as another user through setpriv),
/// with its stderr kept for the test to read.
final class DaemonProcess {
    let process = Process()
    let socketPath: String
    let stderrPath: String

    struct Failure: Error, CustomStringConvertible { var description: String }

    static var binaryPath: String {
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var directory = URL(fileURLWithPath: executable).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("fingerlockd").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return "fingerlockd"
    }

    /// Starts the service and waits (at most 10 s) until its socket accepts.
    /// `extraArguments` follow `--socket` and `--state-dir` (`--reader simulated`); `environment` is
    /// added to this process's (the service's own FINGERLOCK_SIMULATED_TOUCHES). `launcher` is a
    /// command that execs the rest (e.g. `prlimit --memlock=0:0 --`), so the process is still the
    /// service's. `logind`: the address of a bus with logind on it (a ``LogindMock``), which then
    /// decides who may scan; without it the service finds no bus (whatever the machine has) and is
    /// told to scan for anyone there (`--allow-scans-without-logind`), as these tests are not about
    /// the seat.
    init(
        socket: String, stateDirectory: String, binary: String = DaemonProcess.binaryPath, asUser user: String? = nil,
        extraArguments: [String] = [], environment: [String: String] = [:], launcher: [String] = [],
        logind: String? = nil
    ) async throws {
        socketPath = socket
        stderrPath =
            URL(fileURLWithPath: socket).deletingLastPathComponent().path + "/fingerlockd-\(UUID().uuidString).log"
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        let arguments =
            ["--socket", socket, "--state-dir", stateDirectory] + extraArguments
            + (logind == nil ? ["--allow-scans-without-logind"] : [])
        let bus = ["DBUS_SYSTEM_BUS_ADDRESS": logind ?? "unix:path=/nonexistent/fingerlock-tests-have-no-system-bus"]
        process.environment = ProcessInfo.processInfo.environment.merging(bus) { $1 }.merging(environment) { $1 }
        if let user {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid", user, "--regid", user, "--init-groups", "--", binary] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = arguments
        }
        if let first = launcher.first {
            process.arguments = Array(launcher.dropFirst()) + [process.executableURL!.path] + (process.arguments ?? [])
            process.executableURL = URL(fileURLWithPath: first)
        }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle(forWritingAtPath: stderrPath)
        try process.run()
        let listening = try await poll(timeout: .seconds(10)) {
            if (try? VarlinkTestClient(path: socket)) != nil { return true }
            guard process.isRunning else { throw Failure(description: "fingerlockd exited: \(log)") }
            return false
        }
        if listening { return }
        await terminate()
        throw Failure(description: "fingerlockd did not listen on \(socket): \(log)")
    }

    var log: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// SIGKILL, then waits for the exit by polling: Foundation's `waitUntilExit` spins a run loop,
    /// which off the cooperative pool (a plain thread) can miss the termination and wait forever.
    func kill9() async {
        kill(process.processIdentifier, SIGKILL)
        await exited()
    }

    /// Sends SIGTERM and waits (at most 10 s); returns the exit status, nil when it had to be killed.
    @discardableResult
    func terminate() async -> Int32? {
        guard process.isRunning else { return process.terminationStatus }
        kill(process.processIdentifier, SIGTERM)
        if await exited(within: .seconds(10)) { return process.terminationStatus }
        await kill9()
        return nil
    }

    /// `terminate()` for a `defer`, which cannot await (Swift 6.3): the same, but waiting by
    /// blocking this thread. A service exits within milliseconds of SIGTERM, so that is how long a
    /// pool thread is held; the 10 s are for a service that hangs, which then fails its test.
    func terminateBlocking() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        for _ in 0..<1000 where process.isRunning { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        while process.isRunning { usleep(5_000) }
    }

    /// Whether the service has exited within `timeout` (nil: as long as it takes), by sleeping
    /// between looks. Not cancellable: a cancelled test still waits for the service it stops.
    @discardableResult
    private func exited(within timeout: Duration? = nil) async -> Bool {
        let deadline = timeout.map { ContinuousClock.now + $0 }
        while process.isRunning {
            if let deadline, ContinuousClock.now >= deadline { return false }
            await sleepEvenIfCancelled(.milliseconds(5))
        }
        return true
    }

    deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
}

/// Runs a command to completion (at most `timeout` seconds) and returns its status and stdout.
@discardableResult
func runCommand(
    _ executable: String, _ arguments: [String], timeout: Double = 60, mergingStandardError: Bool = false
) async throws -> (status: Int32, output: String) {
    let ran = try await runCommandSeparately(executable, arguments, timeout: timeout)
    return (ran.status, mergingStandardError ? ran.stdout + ran.stderr : ran.stdout)
}

/// What a finished command printed, each stream apart.
struct CommandOutput {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs a command to completion (at most `timeout` seconds). Output goes through files, so no
/// thread blocks on a pipe, and the wait sleeps between looks: a command of these tests can run
/// for a minute, and a blocked thread of the cooperative pool (one per core) stalls every other
/// test of the run.
func runCommandSeparately(
    _ executable: String, _ arguments: [String], timeout: Double = 60
) async throws -> CommandOutput {
    let outputPath = NSTemporaryDirectory() + "/fingerlockd-test-output-\(UUID().uuidString)"
    let errorPath = outputPath + ".err"
    for path in [outputPath, errorPath] { _ = FileManager.default.createFile(atPath: path, contents: nil) }
    defer { for path in [outputPath, errorPath] { try? FileManager.default.removeItem(atPath: path) } }
    // Closed here once the command has ended: the Process keeps its handles, and a suite of
    // hundreds of commands left as many open files behind (past a 1024 descriptor limit).
    guard let output = FileHandle(forWritingAtPath: outputPath), let errors = FileHandle(forWritingAtPath: errorPath) else {
        throw DaemonProcess.Failure(description: "cannot write \(outputPath)")
    }
    defer {
        try? output.close()
        try? errors.close()
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.standardOutput = output
    process.standardError = errors
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let ended: Bool
    do {
        ended = try await poll(timeout: .seconds(timeout)) { !process.isRunning }
    } catch {
        // Cancelled (the test's time limit): the command goes too.
        kill(process.processIdentifier, SIGKILL)
        throw error
    }
    if !ended {
        process.terminate()
        // SIGTERM may be blocked (children start with the test runner's signal mask): then SIGKILL.
        let deadline = ContinuousClock.now + .seconds(10)
        while process.isRunning && ContinuousClock.now < deadline { await sleepEvenIfCancelled(.milliseconds(10)) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        while process.isRunning { await sleepEvenIfCancelled(.milliseconds(10)) }
        throw DaemonProcess.Failure(description: "\(executable) \(arguments) timed out")
    }
    func text(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
    return CommandOutput(status: process.terminationStatus, stdout: text(outputPath), stderr: text(errorPath))
}

/// Polls `condition` every `interval` until it holds (true) or `timeout` has passed (false),
/// sleeping between looks: Swift Testing runs async tests on the cooperative pool, which has only
/// as many threads as cores, so a test that blocked one while it waited would stall the others.
func poll(
    timeout: Duration, every interval: Duration = .milliseconds(10), until condition: () throws -> Bool
) async throws -> Bool {
    let deadline = ContinuousClock.now + timeout
    while true {
        if try condition() { return true }
        if ContinuousClock.now >= deadline { return false }
        try await Task.sleep(for: interval)
    }
}

/// Sleeps for `duration`, also in a cancelled task (where `Task.sleep` throws at once): for waits
/// that must run to their end, such as for a process already told to stop. A detached task is not
/// cancelled with this one.
func sleepEvenIfCancelled(_ duration: Duration) async {
    await Task.detached { try? await Task.sleep(for: duration) }.value
}
