import Auth
public import AuthCore
public import FingerlockCLI
import FingerlockServiceClient
import FingerlockTestSupport
public import Foundation
import Synchronization
import Vault

#if canImport(Glibc)
    import Glibc
#endif

/// `fingerlock` run in this process, through `FingerlockMain.run(arguments:dependencies:)` with the
/// dependencies the executable assembles, but for the tests' own: a captured console, a scripted
/// stdin, a key cache in memory (not the kernel keyring), the simulated reader, no terminal, no
/// remote session, and vaults made at the tests' KDF cost. For tests whose subject is a command's
/// behaviour (output, exit status, what changes in the vault); what needs a process or an operating
/// system resource (signals, terminals, real users, the keyring, devices) stays end to end.
///
/// End-to-end tests use it too, as their vault fixture (`vaultFixture(home:environment:)`): the
/// vault a test starts from is made here at the test KDF cost, in the binary's own data directory
/// and keyring, and the built binary then opens it at that stored cost. The shipped binary gains no
/// switch to make a cheap vault.
public final class InProcessCLI: Sendable {
    /// The passcode `setPasscode()` sets.
    public static let passcode = "correct horse battery"

    public let home: String
    public let dataDirectory: String
    public let environment: [String: String]
    public let keyCache: any KeyCache
    public let reuseMarkers: any KeyCache
    private let username: String
    /// Whether `deinit` removes `home` (not when it belongs to an end-to-end runner).
    private let ownsHome: Bool
    /// Whether the machine is taken to run systemd (what fingerlockd's fix says).
    private let systemd: Bool

    public typealias Result = CommandResult

    /// A runner with a home of its own, its keys in memory.
    public init(extraEnvironment: [String: String] = [:], systemd: Bool = true) {
        self.systemd = systemd
        home = FileManager.default.temporaryDirectory.appendingPathComponent("fl-cli-\(UUID().uuidString)").path
        dataDirectory = home + "/data"
        environment = [
            "HOME": home, "FINGERLOCK_DATA_DIR": dataDirectory, "LANG": "C.UTF-8", "PATH": "/usr/bin:/bin",
        ].merging(extraEnvironment) { $1 }
        keyCache = InMemoryKeyCache(now: { Date() })
        reuseMarkers = InMemoryKeyCache(now: { Date() })
        username = "tester"
        ownsHome = true
        try? FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    /// The vault fixture of an end-to-end runner: the binary's environment (its data directory and
    /// user name) and its kernel keyring namespace, so what this runner sets up (a vault, its cached
    /// key) is what the binary then finds, as if the binary had made it.
    public init(vaultFixtureFor environment: [String: String], home: String) {
        self.home = home
        dataDirectory = environment["FINGERLOCK_DATA_DIR"] ?? home + "/.local/share/fingerlock"
        // The binary, beside one of libfprint's virtual devices, finds a test reader and so makes a
        // test vault; this process enumerates no libfprint reader, so it is told to choose the
        // simulated one, which makes the same kind of vault.
        let virtualDevice = ["FP_VIRTUAL_DEVICE", "FP_VIRTUAL_DEVICE_STORAGE", "FP_VIRTUAL_IMAGE"].contains { environment[$0] != nil }
        self.environment =
            virtualDevice && environment["FINGERLOCK_READER"] == nil
            ? environment.merging(["FINGERLOCK_READER": "simulated"]) { $1 } : environment
        keyCache = KernelKeyringCache(namespace: environment["FINGERLOCK_KEYRING_NAMESPACE"])
        reuseMarkers = KernelKeyringCache(prefix: "fingerlock-reuse", namespace: environment["FINGERLOCK_KEYRING_NAMESPACE"])
        username = environment["USER"] ?? "fingerlock"
        ownsHome = false
        systemd = true
    }

    deinit { if ownsHome { try? FileManager.default.removeItem(atPath: home) } }

    /// Runs `fingerlock ARGUMENTS` with `stdin` as its standard input, as `BinaryRunner.run` does
    /// (so a suite moves here unchanged). `--passcode-stdin` becomes `--passcode-fd N` on a pipe that
    /// holds `stdin`, which is then not the command's stdin too: what `--passcode-stdin` itself
    /// refuses or says is tested end to end. `timeout` is not needed in process; it is taken for
    /// the same call sites.
    public func run(
        _ arguments: [String], environment extra: [String: String] = [:], stdin: String = "", timeout: Duration = .seconds(60)
    ) async throws -> Result {
        try await run(arguments, environment: extra, stdin: stdin, now: nil)
    }

    /// `run` with the clock the command reads set to `now` (the real one when nil).
    public func run(_ arguments: [String], environment extra: [String: String] = [:], stdin: String = "", now: Date?) async throws
        -> Result
    {
        // A passcode descriptor is made and read while no other in-process run can start a helper
        // program (see `DescriptorGate`).
        // (Beside an explicit `--passcode-fd`, `--passcode-stdin` stays as given: the CLI refuses the pair,
        // and a descriptor of the test process is never read as a passcode.)
        let readsDescriptor = arguments.contains("--passcode-stdin") && !arguments.contains { $0.hasPrefix("--passcode-fd") }
        await DescriptorGate.process.enter(exclusive: readsDescriptor)
        defer { DescriptorGate.process.leave(exclusive: readsDescriptor) }
        var arguments = arguments
        var input = Data(stdin.utf8)
        var passcodeFD: Int32?
        if readsDescriptor, let index = arguments.firstIndex(of: "--passcode-stdin") {
            var fds: [Int32] = [0, 0]
            guard pipe(&fds) == 0 else { throw POSIXError(.EMFILE) }
            let bytes = Array(stdin.utf8)
            // Passcodes are short: the pipe's buffer holds them, so this never blocks.
            _ = bytes.withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) }
            close(fds[1])
            passcodeFD = fds[0]
            arguments.replaceSubrange(index...index, with: ["--passcode-fd", String(fds[0])])
            input = Data()
        }
        defer { if let passcodeFD { close(passcodeFD) } }
        let out = CapturedOutput()
        let err = CapturedOutput()
        let environment = self.environment.merging(extra) { $1 }
        let dependencies = CLIDependencies(
            environment: environment,
            console: Console(out: out, err: err, environment: environment),
            hardwareReaders: { [] },
            openTerminal: { nil },
            now: { now ?? Date() },
            username: username,
            keyCache: keyCache,
            reuseMarkers: reuseMarkers,
            input: ScriptedInput(input),
            passcodeRepository: { directory in
                VaultPasscodeRepository(dataDirectory: directory, configuration: VaultConfiguration(), cost: .insecureForTestsOnly())
            },
            attemptStore: { directory in FileAttemptStore(dataDirectory: directory) },
            remoteSession: { nil },
            childProcesses: PosixChildProcessRunner(),
            systemService: { [systemd] socketPath in SystemServiceClient(socketPath: socketPath, systemd: systemd) })
        let status = await FingerlockMain.run(arguments: arguments, dependencies: dependencies)
        return Result(status: status, stdout: out.text, stderr: err.text)
    }

    /// `passcode set` with the test passcode (its key is then cached, as after any passcode); the
    /// recovery key it showed.
    @discardableResult
    public func setPasscode(_ passcode: String = InProcessCLI.passcode) async throws -> String {
        let result = try await run(["passcode", "set", "--passcode-stdin"], stdin: "\(passcode)\n\(passcode)\n")
        guard result.status == 0 else { throw InProcessCLIFailure(arguments: ["passcode", "set"], result: result) }
        let line = result.stdout.split(separator: "\n").first { $0.hasPrefix("Recovery key") } ?? ""
        return String(line.split(separator: ": ").last ?? "")
    }

    /// `enroll FINGER` with the passcode, the simulated reader touched as `touches` says.
    public func enroll(_ finger: String, touches: String) async throws -> Result {
        try await run(["enroll", finger, "--passcode-stdin"], environment: ["FINGERLOCK_SIMULATED_TOUCHES": touches], stdin: "\(Self.passcode)\n")
    }
}

/// What a `fingerlock` command did, run in process or as the built binary (both runners return it,
/// so a test's helpers serve suites at either level).
public struct CommandResult: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String

    public init(status: Int32, stdout: String, stderr: String) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
    }
}

/// Output kept in memory, never a terminal.
public final class CapturedOutput: FingerlockCLI.OutputStream {
    private let bytes = Mutex<[UInt8]>([])
    public init() {}
    public func write(_ text: String) { write(Array(text.utf8)) }
    public func write(_ utf8: [UInt8]) { bytes.withLock { $0 += utf8 } }
    public var isTerminal: Bool { false }
    public var failure: String? { nil }
    public var regularFileOffset: Int64? { nil }
    public func truncate(to offset: Int64) {}
    public var text: String { bytes.withLock { String(decoding: $0, as: UTF8.self) } }
}

/// A set-up step that failed (the test cannot go on from it): what ran and what it said.
public struct InProcessCLIFailure: Error, CustomStringConvertible {
    public let arguments: [String]
    public let result: InProcessCLI.Result
    public var description: String { "fingerlock \(arguments.joined(separator: " ")) exited \(result.status): \(result.stderr)" }
}

/// Standard input from memory (a pipe or a file as far as the command can tell).
public struct ScriptedInput: InputSource {
    public let data: Data
    public init(_ data: Data) { self.data = data }
    public var isTerminal: Bool { false }
    public func readAll() throws -> Data { data }
    public func readAll(limit: Int) throws -> Data? { data.count > limit ? nil : data }
}
