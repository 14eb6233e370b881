import Auth
import AuthCore
import Fingerprint
import Foundation
import SafeFiles
import TrustedPlatform
import Vault

/// What a command needs to authenticate: the reader in effect, the interaction (terminal, script
/// or none), the `AuthEnvironment` built from them that every use case of the command shares, and
/// the `AuthContext` that opens the notes.
struct AuthSession {
    let environment: AuthEnvironment
    let context: AuthContext
    /// The reader in effect, possibly still being found.
    let readerLookup: ReaderLookup
    let interaction: any AuthInteraction
    let dataDirectory: String
    let dependencies: CLIDependencies
    let resolver: ReaderResolver

    init(
        global: GlobalOptions, passcode: PasscodeOptions?, dependencies: CLIDependencies, needsReader: Bool = true,
        json: Bool = false, recoveryKey: RecoveryKeyOptions? = nil
    ) async throws {
        try await self.init(
            global: global.settings, passcodeDescriptor: passcode?.descriptor, dependencies: dependencies,
            needsReader: needsReader, json: json, recoveryKey: recoveryKey)
    }

    /// - Parameter passcodeDescriptor: where scripted passcodes come from (`--passcode-stdin` is 0), or nil.
    /// - Parameter recoveryKey: given by a command that makes a new recovery key: where it goes, checked now.
    init(
        global: GlobalSettings, passcodeDescriptor: Int32?, dependencies: CLIDependencies, needsReader: Bool = true,
        json: Bool = false, recoveryKey: RecoveryKeyOptions? = nil
    ) async throws {
        let dataDirectory = try global.dataDirectory(dependencies.environment)
        let resolver = try ReaderResolver(option: global.reader, dependencies: dependencies)
        // The reader, or the problem that explains its absence; other errors (a bad simulated script) throw.
        let find: @Sendable () async throws -> ReaderLookup.Outcome = { [resolver] in
            do {
                return (try await resolver.requiredReader(), nil)
            } catch let error as FingerprintError {
                return (nil, error)
            }
        }
        if !needsReader || resolver.choice == .fprintd {
            // With fprintd, fprintd scans: this process never opens a reader. A command that may
            // touch asks fprintd ahead (connecting, its device, the user's fingers) while it opens
            // the vault.
            if needsReader && resolver.choice == .fprintd { dependencies.fprintd?.prepare() }
            readerLookup = .found(nil)
        } else if resolver.choice == .simulated {
            // Made on the spot (its script errors are usage errors, reported now).
            let (reader, problem) = try await find()
            readerLookup = .found(reader, problem: problem)
        } else {
            // Found when the policy first needs it (never for a system-mode vault, whose reader is
            // fingerlockd's), on libfprint's thread while the command gets on meanwhile.
            readerLookup = .deferred {
                do {
                    return try await find()
                } catch is CancellationError {
                    return (nil, FingerprintError(.deviceError, "Listing the fingerprint readers was cancelled."))
                } catch {
                    return (nil, FingerprintError(.deviceError, "Cannot list the fingerprint readers: \(error)"))
                }
            }
        }
        var interaction: any AuthInteraction
        if let fd = passcodeDescriptor {
            interaction = ScriptedPasscodeInteraction(fd: fd, console: dependencies.console, quiet: json)
        } else if let terminal = dependencies.openTerminal() {
            interaction = TerminalInteraction(terminal: terminal, readerOwnsTerminal: resolver.simulatedReaderUsesTerminal)
        } else {
            interaction = NonInteractive(console: dependencies.console, quiet: json)
        }
        if let recoveryKey {
            interaction = try Self.recoveryKeyInteraction(interaction, recoveryKey, console: dependencies.console)
        }
        self.interaction = interaction
        self.dataDirectory = dataDirectory
        self.dependencies = dependencies
        let listed: @Sendable () async -> [any FingerprintReader] = { [resolver] in (try? await resolver.connectedReaders()) ?? [] }
        let socketPath = global.socketPath(dependencies.environment)
        environment = AuthEnvironment(
            .init(
                passcodes: dependencies.passcodeRepository(dataDirectory),
                readerLookup: readerLookup,
                keyCache: dependencies.keyCache, reuseMarkers: dependencies.reuseMarkers, attempts: dependencies.attemptStore(dataDirectory),
                interaction: interaction, remoteSession: dependencies.remoteSession, now: dependencies.now,
                connectedReaders: listed, testReaderChosen: resolver.choosesTestReader,
                systemService: dependencies.systemService(socketPath),
                tpm: dependencies.tpm(dependencies.environment["FINGERLOCK_TPM_TCTI"] ?? ESAPIModule.defaultLocation),
                fprintd: dependencies.fprintd, fprintdChosen: resolver.choice == .fprintd))
        context = AuthContext(environment)
        self.resolver = resolver
    }

    /// Where a new recovery key will go, checked before anything is asked: nobody types a passcode
    /// for a change whose only key would be lost. Without a terminal the key goes to stdout, which
    /// must keep it (not /dev/null, not closed, not a pipe nobody reads); the write itself is
    /// checked again (`deliverOnce`), before the change is made.
    static func recoveryKeyInteraction(
        _ interaction: any AuthInteraction, _ options: RecoveryKeyOptions, console: Console
    ) throws -> any AuthInteraction {
        if let path = options.file {
            if let problem = NewPrivateFile.problem(at: path) { throw problem }
            return RecoveryKeyFileInteraction(base: interaction, path: path)
        }
        if !(interaction is TerminalInteraction), let problem = console.out.losesOutput {
            throw CLIError(
                .dataError,
                "The new recovery key would be lost: \(problem). Nothing was changed; use --recovery-key-file FILE, or let stdout reach you.")
        }
        return interaction
    }
}

extension ReaderResolver {
    /// Every connected reader the choice covers: the simulated one only when asked for.
    func connectedReaders() async throws -> [any FingerprintReader] {
        try await listedReaders()
    }

    /// Whether `--reader` names a test reader (simulated, or a libfprint `virtual_*` driver) —
    /// known even when that reader is absent. Nil for `auto`: it depends on what is connected.
    var choosesTestReader: Bool? {
        switch choice {
        case .auto: nil
        case .simulated: true
        case .fprintd: false
        case .driver(let driver): ReaderIdentity(driver: driver, deviceID: "0").isTestReader
        case .exact(let identity): identity.isTestReader
        }
    }

    /// The interactive simulated reader reads the terminal itself during scans.
    var simulatedReaderUsesTerminal: Bool {
        choice == .simulated && dependencies.environment["FINGERLOCK_SIMULATED_TOUCHES"] == nil
    }
}
