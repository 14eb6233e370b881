import Auth
import Fingerprint
import Foundation
import Vault

/// What a command needs to authenticate: the reader in effect, the interaction (terminal, script
/// or none) and the `AuthContext` built from them.
struct AuthSession {
    let context: AuthContext
    /// The reader in effect, possibly still being found.
    let readerLookup: ReaderLookup
    let interaction: any AuthInteraction
    let dataDirectory: String
    let dependencies: CLIDependencies

    init(
        global: GlobalOptions, passcode: PasscodeOptions?, dependencies: CLIDependencies, needsReader: Bool = true,
        json: Bool = false
    ) async throws {
        try await self.init(
            global: global.settings, passcodeDescriptor: passcode?.descriptor, dependencies: dependencies,
            needsReader: needsReader, json: json)
    }

    /// - Parameter passcodeDescriptor: where scripted passcodes come from (`--passcode-stdin` is 0), or nil.
    init(
        global: GlobalSettings, passcodeDescriptor: Int32?, dependencies: CLIDependencies, needsReader: Bool = true,
        json: Bool = false
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
        if !needsReader {
            readerLookup = .found(nil)
        } else if resolver.choice == .simulated {
            // Made on the spot (its script errors are usage errors, reported now).
            let (reader, problem) = try await find()
            readerLookup = .found(reader, problem: problem)
        } else {
            // libfprint is still enumerating on its thread: let the commands get on meanwhile.
            readerLookup = .started {
                do {
                    return try await find()
                } catch is CancellationError {
                    return (nil, FingerprintError(.deviceError, "Listing the fingerprint readers was cancelled."))
                } catch {
                    return (nil, FingerprintError(.deviceError, "Cannot list the fingerprint readers: \(error)"))
                }
            }
        }
        let interaction: any AuthInteraction
        if let fd = passcodeDescriptor {
            interaction = ScriptedPasscodeInteraction(fd: fd, console: dependencies.console, quiet: json)
        } else if let terminal = dependencies.openTerminal() {
            interaction = TerminalInteraction(terminal: terminal, readerOwnsTerminal: resolver.simulatedReaderUsesTerminal)
        } else {
            interaction = NonInteractive(console: dependencies.console, quiet: json)
        }
        self.interaction = interaction
        self.dataDirectory = dataDirectory
        self.dependencies = dependencies
        var authDependencies = AuthContext.Dependencies(
            dataDirectory: dataDirectory, readerLookup: readerLookup, keyCache: dependencies.keyCache,
            attempts: FileAttemptStore(dataDirectory: dataDirectory), interaction: interaction,
            environment: dependencies.environment, now: dependencies.now,
            vaultConfiguration: VaultConfiguration(now: dependencies.now))
        authDependencies.testReaderChosen = resolver.choosesTestReader
        context = AuthContext(authDependencies)
    }

    /// The reader, or the reader error explaining its absence (waiting for libfprint if need be).
    func requireReader() async throws -> any FingerprintReader {
        let (reader, problem) = await readerLookup.outcome()
        if let reader { return reader }
        throw problem ?? FingerprintError.noReader()
    }
}

extension ReaderResolver {
    /// Whether `--reader` names a test reader (simulated, or a libfprint `virtual_*` driver) —
    /// known even when that reader is absent. Nil for `auto`: it depends on what is connected.
    var choosesTestReader: Bool? {
        switch choice {
        case .auto: nil
        case .simulated: true
        case .driver(let driver): ReaderIdentity(driver: driver, deviceID: "0").isTestReader
        case .exact(let identity): identity.isTestReader
        }
    }

    /// The interactive simulated reader reads the terminal itself during scans.
    var simulatedReaderUsesTerminal: Bool {
        choice == .simulated && dependencies.environment["FINGERLOCK_SIMULATED_TOUCHES"] == nil
    }
}
