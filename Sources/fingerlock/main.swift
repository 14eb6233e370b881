#if canImport(Glibc)
import Glibc
#endif
import Auth
import FingerlockCLI
import Fingerprint
import Foundation

// Notes and keys live in this process's memory: never in a core dump.
var noCoreDumps = rlimit(rlim_cur: 0, rlim_max: 0)
_ = setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &noCoreDumps)

// The one place that assembles the real dependencies.
let environment = ProcessInfo.processInfo.environment
let dependencies = CLIDependencies(
    environment: environment,
    console: Console(out: FileDescriptorOutput.standardOutput, err: FileDescriptorOutput.standardError, environment: environment),
    hardwareReaders: { [] },
    openTerminal: { Terminal() },
    now: { Date() },
    username: environment["USER"] ?? "fingerlock",
    keyCache: KernelKeyringCache(),
    input: FileDescriptorInput.standardInput
)
exit(await FingerlockMain.run(arguments: Array(CommandLine.arguments.dropFirst()), dependencies: dependencies))
