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

// The one place that assembles the real dependencies. libfprint gets its one thread here.
let environment = ProcessInfo.processInfo.environment
let libfprint = LibfprintContext()
let arguments = Array(CommandLine.arguments.dropFirst())
// A command that will want a reader starts libfprint now, on its thread, overlapping argument
// parsing and the vault's unlock; the others never touch it.
if FingerlockMain.mayUseHardwareReader(arguments: arguments, environment: environment) { libfprint.prepare() }
let dependencies = CLIDependencies(
    environment: environment,
    console: Console(out: FileDescriptorOutput.standardOutput, err: FileDescriptorOutput.standardError, environment: environment),
    hardwareReaders: { try await libfprint.readers() },
    openTerminal: { Terminal() },
    now: { Date() },
    username: environment["USER"] ?? "fingerlock",
    keyCache: KernelKeyringCache(),
    input: FileDescriptorInput.standardInput
)
let status = await FingerlockMain.run(arguments: arguments, dependencies: dependencies)
// A cancelled operation's device may still be closing on the libfprint thread: let it finish, so the
// reader is never left claimed.
await libfprint.waitUntilIdle()
exit(status)
