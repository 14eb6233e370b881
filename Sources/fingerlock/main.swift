#if canImport(Glibc)
import Glibc
#endif
import Auth
import FingerlockCLI
import Fingerprint
import Foundation

// The one place that assembles the real dependencies.
let environment = ProcessInfo.processInfo.environment
let dependencies = CLIDependencies(
    environment: environment,
    console: Console(out: FileDescriptorOutput.standardOutput, err: FileDescriptorOutput.standardError, environment: environment),
    hardwareReaders: { [] },
    openTerminal: { Terminal() },
    now: { Date() },
    username: environment["USER"] ?? "fingerlock",
    keyCache: KernelKeyringCache()
)
exit(await FingerlockMain.run(arguments: Array(CommandLine.arguments.dropFirst()), dependencies: dependencies))
