import Auth
import AuthCore
import FingerlockCLI
import FingerlockServiceClient
import Fingerprint
import Foundation
import Fprintd
import SafeFiles
import Vault

#if canImport(Glibc)
    import Glibc
#endif

// Notes and keys live in this process's memory: never in a core dump, never readable by ptrace.
ProcessHardening.apply()
// tpm2-tss logs every TPM refusal on stderr, and its trace level prints the session's secrets (the
// passcode's half, the unsealed secret): always off, whatever the environment says. fingerlock says
// the TPM's refusals itself, once.
setenv("TSS2_LOG", "all+none", 1)

// The one place that assembles the real dependencies. libfprint is opened, on a thread of its own,
// only when the policy first needs a hardware reader (never for a system-mode vault).
let environment = processEnvironment()
let libfprint = LibfprintContext(log: LibfprintLogOutput.sink(environment: environment, err: FileDescriptorOutput.standardError))
let arguments = Array(CommandLine.arguments.dropFirst())
let dependencies = CLIDependencies(
    environment: environment,
    console: Console(out: FileDescriptorOutput.standardOutput, err: FileDescriptorOutput.standardError, environment: environment),
    hardwareReaders: { try await libfprint.readers() },
    openTerminal: { Terminal() },
    now: { Date() },
    username: environment["USER"] ?? "fingerlock",
    keyCache: KernelKeyringCache(namespace: environment["FINGERLOCK_KEYRING_NAMESPACE"]),
    reuseMarkers: KernelKeyringCache(prefix: "fingerlock-reuse", namespace: environment["FINGERLOCK_KEYRING_NAMESPACE"]),
    input: FileDescriptorInput.standardInput,
    passcodeRepository: { directory in
        VaultPasscodeRepository(dataDirectory: directory, configuration: VaultConfiguration(), cost: .calibrated)
    },
    attemptStore: { directory in FileAttemptStore(dataDirectory: directory) },
    remoteSession: { RemoteSessionDetector(environment: environment, probe: SystemSessionProbe()).reason() },
    childProcesses: PosixChildProcessRunner(),
    systemService: { socketPath in SystemServiceClient(socketPath: socketPath, systemd: SystemServiceClient.systemdRuns) },
    // Loads GIO and connects only when a vault or `--reader fprintd` first asks fprintd.
    fprintd: FprintdClient()
)
/// Runs the command and exits from where it ends. Top-level code is on the main actor, and returning
/// to it after the command (which runs off it) would wake the main queue's thread just to exit.
nonisolated func runThenExit() async -> Never {
    let status = await FingerlockMain.run(arguments: arguments, dependencies: dependencies)
    // A cancelled operation's device may still be closing on the libfprint thread: let it finish, so
    // the reader is never left claimed.
    await libfprint.waitUntilIdle()
    exit(status)
}

await runThenExit()

/// The environment, read from `environ` (the first of duplicate names wins, entries without `=` are
/// skipped). Read directly rather than through `ProcessInfo.processInfo.environment`, which sets up
/// Foundation's process info first.
func processEnvironment() -> [String: String] {
    var result: [String: String] = [:]
    var entry = environ
    while let pointer = entry.pointee {
        let text = String(cString: pointer)
        if let equals = text.utf8.firstIndex(of: UInt8(ascii: "=")) {
            let name = String(text[..<equals])
            if result[name] == nil { result[name] = String(text[text.utf8.index(after: equals)...]) }
        }
        entry += 1
    }
    return result
}
