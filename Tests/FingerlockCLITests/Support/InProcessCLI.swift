import Auth
import AuthCore
@testable import FingerlockCLI
import FingerlockServiceClient
import Foundation
import Synchronization
import Testing
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
final class InProcessCLI: Sendable {
    /// The passcode `setPasscode()` sets.
    static let passcode = "correct horse battery"

    let home: String
    let dataDirectory: String
    let environment: [String: String]
    let keyCache = InMemoryKeyCache(now: { Date() })
    let reuseMarkers = InMemoryKeyCache(now: { Date() })

    struct Result: Sendable {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    init(extraEnvironment: [String: String] = [:]) {
        home = FileManager.default.temporaryDirectory.appendingPathComponent("fl-cli-\(UUID().uuidString)").path
        dataDirectory = home + "/data"
        environment = [
            "HOME": home, "FINGERLOCK_DATA_DIR": dataDirectory, "LANG": "C.UTF-8", "PATH": "/usr/bin:/bin",
        ].merging(extraEnvironment) { $1 }
        try? FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    deinit { try? FileManager.default.removeItem(atPath: home) }

    /// Runs `fingerlock ARGUMENTS` with `stdin` as its standard input, as `BinaryRunner.run` does
    /// (so a suite moves here unchanged). `--passcode-stdin` becomes `--passcode-fd N` on a pipe that
    /// holds `stdin`, which is then not the command's stdin too: what `--passcode-stdin` itself
    /// refuses or says is tested end to end. `timeout` is not needed in process; it is taken for
    /// the same call sites.
    func run(
        _ arguments: [String], environment extra: [String: String] = [:], stdin: String = "", timeout: Duration = .seconds(60)
    ) async throws -> Result {
        var arguments = arguments
        var input = Data(stdin.utf8)
        var passcodeFD: Int32?
        if let index = arguments.firstIndex(of: "--passcode-stdin") {
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
            now: { Date() },
            username: "tester",
            keyCache: keyCache,
            reuseMarkers: reuseMarkers,
            input: ScriptedInput(input),
            passcodeRepository: { directory in
                VaultPasscodeRepository(dataDirectory: directory, configuration: VaultConfiguration(), cost: .insecureForTestsOnly())
            },
            attemptStore: { directory in FileAttemptStore(dataDirectory: directory) },
            remoteSession: { nil },
            childProcesses: PosixChildProcessRunner(),
            systemService: { socketPath in SystemServiceClient(socketPath: socketPath) })
        let status = await FingerlockMain.run(arguments: arguments, dependencies: dependencies)
        return Result(status: status, stdout: out.text, stderr: err.text)
    }

    /// `passcode set` with the test passcode (its key is then cached, as after any passcode); the
    /// recovery key it showed.
    @discardableResult
    func setPasscode() async throws -> String {
        let result = try await run(["passcode", "set", "--passcode-stdin"], stdin: "\(Self.passcode)\n\(Self.passcode)\n")
        #expect(result.status == 0, "passcode set: \(result.stderr)")
        let line = result.stdout.split(separator: "\n").first { $0.hasPrefix("Recovery key") } ?? ""
        return String(line.split(separator: ": ").last ?? "")
    }

    /// `enroll FINGER` with the passcode, the simulated reader touched as `touches` says.
    func enroll(_ finger: String, touches: String) async throws -> Result {
        try await run(["enroll", finger, "--passcode-stdin"], environment: ["FINGERLOCK_SIMULATED_TOUCHES": touches], stdin: "\(Self.passcode)\n")
    }
}

/// Output kept in memory, never a terminal.
final class CapturedOutput: FingerlockCLI.OutputStream {
    private let bytes = Mutex<[UInt8]>([])
    func write(_ text: String) { write(Array(text.utf8)) }
    func write(_ utf8: [UInt8]) { bytes.withLock { $0 += utf8 } }
    var isTerminal: Bool { false }
    var failure: String? { nil }
    var regularFileOffset: Int64? { nil }
    func truncate(to offset: Int64) {}
    var text: String { bytes.withLock { String(decoding: $0, as: UTF8.self) } }
}

/// Standard input from memory (a pipe or a file as far as the command can tell).
struct ScriptedInput: InputSource {
    let data: Data
    init(_ data: Data) { self.data = data }
    var isTerminal: Bool { false }
    func readAll() throws -> Data { data }
    func readAll(limit: Int) throws -> Data? { data.count > limit ? nil : data }
}
