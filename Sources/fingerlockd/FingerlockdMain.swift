import FingerlockService
import Fingerprint
import FoundationEssentials
import Fprintd
import Glibc
import Logging
import SafeFiles
import ServiceLifecycle
import TrustedPlatform
import UnixSignals

#if canImport(Glibc)
    import Glibc
#endif

/// `fingerlockd --socket PATH --state-dir DIR`: the only place the real dependencies are assembled.
/// With systemd socket activation (LISTEN_PID/LISTEN_FDS naming this process) the socket is fd 3
/// and `--socket` is not needed; `--state-dir` defaults to systemd's `$STATE_DIRECTORY`.
@main
enum FingerlockdMain {
    static let version = "0.1.0"
    static let usage = """
        usage: fingerlockd [--socket PATH] [--state-dir DIR] [--reader auto|simulated|fprintd|DRIVER[:ID]]
          --socket PATH     listen on this Unix socket (created 0666; not needed under socket activation)
          --state-dir DIR   keep the per-vault secrets, counters and templates here (0700; default $STATE_DIRECTORY)
          --reader READER   the fingerprint reader to scan with (default $FINGERLOCK_READER, else auto); the
                            simulated one follows this process's FINGERLOCK_SIMULATED_TOUCHES/_STAGES;
                            fprintd: none of its own (fprintd keeps the reader; vaults that took fprintd's
                            fingers verify through fprintd whatever this says)
          --allow-scans-without-logind
                            where no system bus or no logind answers, scan for any caller (default: refuse
                            every scan there; with logind, only the user active and local at seat0 scans)
          --version         print the version
        """

    static func main() async {
        var socketPath: String?
        let environment = ProcessInfo.processInfo.environment
        var stateDirectory = environment["STATE_DIRECTORY"]
        var readerText = environment["FINGERLOCK_READER"] ?? "auto"
        var allowScansWithoutLogind = false
        var arguments = CommandLine.arguments.dropFirst()
        while let argument = arguments.popFirst() {
            switch argument {
            case "--socket": socketPath = arguments.popFirst()
            case "--state-dir": stateDirectory = arguments.popFirst()
            case "--reader": readerText = arguments.popFirst() ?? ""
            case "--allow-scans-without-logind": allowScansWithoutLogind = true
            case "--version":
                print("fingerlockd \(version)")
                return
            case "--help", "-h":
                print(usage)
                return
            default:
                fail("unknown argument \(argument)\n\(usage)", code: 64)
            }
        }
        // A client closing early must never kill the service; writes use MSG_NOSIGNAL too.
        signal(SIGPIPE, SIG_IGN)
        // Never dumped nor traced by users: the process holds keys.
        ProcessHardening.apply()
        // A tracer that attached before that line (a process of the service user can kill the service
        // and attach to the one systemd starts next, in the instant before it becomes non-dumpable)
        // would stay attached and read every key cached later: such a start holds no key.
        if let tracer = ProcessHardening.tracerPID(), tracer != 0 {
            fail("process \(tracer) has been tracing fingerlockd since it started; it would see every cached key", code: 1)
        }
        umask(0o077)

        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        let logger = Logger(label: "fingerlockd")

        guard let stateDirectory, !stateDirectory.isEmpty else {
            fail("--state-dir DIR is required\n\(usage)", code: 64)
        }
        guard let selector = ReaderSelector(readerText) else {
            fail("--reader \(readerText): expected auto, simulated, fprintd, DRIVER or DRIVER:DEVICE-ID", code: 64)
        }
        let readers: ServiceReaders
        do {
            // One libfprint context for the service's lifetime, created only if a hardware reader is asked for.
            readers = try ServiceReaders.resolve(
                selector, environment: environment,
                context: {
                    // libfprint's and GLib's log in the service's log, not raw on stderr.
                    LibfprintContext(log: { line in
                        let message = Logger.Message(stringLiteral: line.message)
                        let metadata: Logger.Metadata = ["domain": "\(line.domain)"]
                        switch line.level {
                        case .error, .critical, .warning: logger.warning(message, metadata: metadata)
                        case .message, .info: logger.info(message, metadata: metadata)
                        case .debug: logger.debug(message, metadata: metadata)
                        }
                    })
                }, now: { Date() })
        } catch {
            fail("\(error)", code: 64)
        }
        let listener: ListeningSocket
        do {
            if let activated = ListeningSocket.activated(environment: environment) {
                listener = activated
            } else if let socketPath {
                listener = try ListeningSocket.bind(path: socketPath)
            } else {
                fail("--socket PATH is required without socket activation\n\(usage)", code: 64)
            }
        } catch {
            fail("\(error)", code: 1)
        }
        do {
            // A subordinate uid (/etc/subuid) counts against its owner's connections and vaults.
            let accounts = SubordinateUIDAccounts(
                path: "/etc/subuid", highestLoginUID: LoginDefinitions.highestLoginUID(path: "/etc/login.defs"),
                warning: { logger.warning(Logger.Message(stringLiteral: $0)) })
            // The TPM a vault's passcode slot may be bound to: the kernel's resource manager (the
            // unit gives the service the device and group tss), or FINGERLOCK_TPM_TCTI.
            // Off whatever the unit's environment says: tpm2-tss's trace level logs session secrets.
            setenv("TSS2_LOG", "all+none", 1)
            let tpm = ESAPIModule(tcti: environment["FINGERLOCK_TPM_TCTI"] ?? ESAPIModule.defaultLocation)
            // Who may scan: the user whose session is active and local at seat0, asked of logind on the
            // system bus (DBUS_SYSTEM_BUS_ADDRESS, else the standard socket) before every scan.
            let seat = LogindSeatAccess(seat: "seat0", allowWithoutLogind: allowScansWithoutLogind)
            if allowScansWithoutLogind {
                logger.notice("--allow-scans-without-logind: where logind is absent, any caller may scan")
            }
            // fprintd, for the vaults that take their owner's fingers from it: asked by the owner's
            // name (the shipped polkit rule grants the service user verify and setusername), on one
            // connection kept open, so fprintd stays running while the service does.
            let fprintd = FprintdClient(callTimeout: .seconds(2))
            let dependencies = try ServiceDependencies.files(
                stateDirectory: stateDirectory, readers: readers, logger: logger, accounts: accounts, tpm: tpm,
                seat: seat, fprintd: { uid in UserDatabase.systemName(of: uid).map { fprintd.asking(for: $0) } })
            let core = ServiceCore(dependencies: dependencies, version: version)
            let server = try VarlinkServer(listener: listener, core: core, logger: logger)
            logger.info("reader", metadata: ["selector": "\(selector)"])
            let group = ServiceGroup(
                configuration: .init(
                    services: [.init(service: FingerlockDaemon(server: server, core: core, logger: logger))],
                    gracefulShutdownSignals: [.sigterm, .sigint],
                    logger: logger))
            try await group.run()
        } catch {
            fail("\(error)", code: 1)
        }
    }

    static func fail(_ message: String, code: Int32) -> Never {
        let line = Array("fingerlockd: \(message)\n".utf8)
        _ = line.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
        exit(code)
    }
}
