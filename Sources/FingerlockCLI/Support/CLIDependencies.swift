public import Auth
public import AuthCore
public import Fingerprint
public import Foundation
public import NoteSync
public import TrustedPlatform
import Vault

/// Everything a command needs from the outside world. Only the executable assembles the real ones;
/// tests hand in their own.
public struct CLIDependencies: Sendable {
    /// The process environment (for `FINGERLOCK_*`, `XDG_*`, `NO_COLOR`, …).
    public var environment: [String: String]
    public var console: Console
    /// Enumerates the libfprint readers. Called only by commands that need a reader.
    public var hardwareReaders: @Sendable () async throws -> [any FingerprintReader]
    /// Opens the controlling terminal; nil when there is none.
    public var openTerminal: @Sendable () -> Terminal?
    public var now: @Sendable () -> Date
    /// The name recorded on enrolled templates.
    public var username: String
    /// Where an unlocked vault key waits for a finger (the kernel keyring).
    public var keyCache: any KeyCache
    /// Where the reuse window's markers wait (the kernel keyring too, under a name of their own).
    public var reuseMarkers: any KeyCache
    /// Standard input, for note bodies.
    public var input: any InputSource
    /// The vault (behind its key slots) in a data directory.
    public var passcodeRepository: @Sendable (_ dataDirectory: String) -> any PasscodeRepository
    /// fingerlockd at a socket path (system mode), behind Auth's seam.
    public var systemService: @Sendable (_ socketPath: String) -> any SystemService
    /// The attempt counters of a data directory.
    public var attemptStore: @Sendable (_ dataDirectory: String) -> any AttemptStore
    /// Why this is a remote session (the finger is skipped there), or nil.
    public var remoteSession: @Sendable () -> String?
    /// Starts helper programs (`pass`, the clipboard tools).
    public var childProcesses: any ChildProcessRunner
    /// The TPM at a TCTI (`FINGERLOCK_TPM_TCTI`, default the kernel's resource manager).
    public var tpm: @Sendable (_ location: String) -> any TrustedPlatformModule
    /// fprintd on the system bus, for the user running the command (nil where it is not offered).
    /// Asked only by a vault that takes fprintd's fingers, or with `--reader fprintd`.
    public var fprintd: (any FprintdFingers)?
    /// The sync remote at a URL, through a mirror repository in the data directory (the user's git).
    public var syncRemote: @Sendable (_ url: String, _ mirror: String, _ environment: [String: String]) throws -> any SyncRemote

    public init(
        environment: [String: String], console: Console,
        hardwareReaders: @escaping @Sendable () async throws -> [any FingerprintReader],
        openTerminal: @escaping @Sendable () -> Terminal?, now: @escaping @Sendable () -> Date, username: String,
        keyCache: any KeyCache, reuseMarkers: any KeyCache, input: any InputSource,
        passcodeRepository: @escaping @Sendable (_ dataDirectory: String) -> any PasscodeRepository,
        attemptStore: @escaping @Sendable (_ dataDirectory: String) -> any AttemptStore,
        remoteSession: @escaping @Sendable () -> String?, childProcesses: any ChildProcessRunner,
        systemService: @escaping @Sendable (_ socketPath: String) -> any SystemService,
        tpm: @escaping @Sendable (_ location: String) -> any TrustedPlatformModule = { ESAPIModule(tcti: $0) },
        fprintd: (any FprintdFingers)? = nil,
        syncRemote: @escaping @Sendable (_ url: String, _ mirror: String, _ environment: [String: String]) throws -> any SyncRemote =
            GitRemote.users
    ) {
        self.syncRemote = syncRemote
        self.tpm = tpm
        self.fprintd = fprintd
        self.systemService = systemService
        self.childProcesses = childProcesses
        self.passcodeRepository = passcodeRepository
        self.attemptStore = attemptStore
        self.remoteSession = remoteSession
        self.keyCache = keyCache
        self.reuseMarkers = reuseMarkers
        self.input = input
        self.environment = environment
        self.console = console
        self.hardwareReaders = hardwareReaders
        self.openTerminal = openTerminal
        self.now = now
        self.username = username
    }
}
