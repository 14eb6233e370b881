import Auth
import AuthCore
import FingerlockService
import FingerlockServiceClient
import FingerlockTestSupport
import Fingerprint
import Foundation
import Logging
import Testing
import Vault

/// One user's fingerlock in either custody: a data directory with a test vault whose right index
/// finger is enrolled, the passcode just entered (so the key is cached), one clock and one queue of
/// touches. In system mode the vault has been moved into a fingerlockd that runs in this process on
/// a socket of its own, reached through the CLI's own Varlink clients.
final class ParityInstallation: Sendable {
    static let passcode = "plum tree 42"

    let custody: Custody
    let directory: String
    let clock = TestClock()
    let touches = QueuedTouches()
    let reader: SimulatedReader
    let keys: InMemoryKeyCache
    let reuseMarkers: InMemoryKeyCache
    let attempts: FileAttemptStore
    let socketPath: String
    let server: VarlinkServer?
    /// A vault made for hardware readers (no finger can be enrolled on the simulated one then).
    let hardwareVault: Bool
    /// fprintd, played by the simulated reader, when the vault takes fprintd's fingers (a vault for
    /// hardware readers, as fprintd's reader is one); nil when it keeps templates.
    let fprintd: SimulatedFprintd?

    /// - Parameter fprintdsFingers: the vault takes its fingers from fprintd (its right index finger
    ///   enrolled there), in user mode sealed in the vault, in system mode kept by fingerlockd.
    init(_ custody: Custody, hardwareVault: Bool = false, fprintdsFingers: Bool = false) async throws {
        self.custody = custody
        self.hardwareVault = hardwareVault || fprintdsFingers
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("fl-parity-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        reader = SimulatedReader(touches: touches, enrollStages: 1, now: Date.init)
        let fprintd = fprintdsFingers ? SimulatedFprintd(reader: reader) : nil
        self.fprintd = fprintd
        let clock = clock
        keys = InMemoryKeyCache(now: clock.now)
        reuseMarkers = InMemoryKeyCache(now: clock.now)
        attempts = FileAttemptStore(dataDirectory: directory + "/data")
        socketPath = directory + "/socket"
        if custody == .system {
            var logger = Logger(label: "fingerlockd-parity")
            logger.logLevel = .critical
            let dependencies = try ServiceDependencies.files(
                stateDirectory: directory + "/state", readers: .fixed(reader), now: clock.now, logger: logger,
                seat: AnyCallerMayScan(), fprintd: { _ in fprintd })
            let server = try VarlinkServer(
                listener: ListeningSocket.bind(path: socketPath), core: ServiceCore(dependencies: dependencies, version: "parity"),
                logger: logger)
            server.start()
            self.server = server
        } else {
            server = nil
        }
        try await setUp()
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    /// Stops the in-process service (system mode); call at the end of each scenario.
    func stop() async { _ = await server?.stop() }

    /// A new command's context (each CLI command makes its own) with `interaction` as the user.
    func context(_ interaction: any AuthInteraction, remoteSession: String? = nil, testReaderChosen: Bool = true) -> AuthContext {
        let passcodes = VaultPasscodeRepository(
            dataDirectory: directory + "/data", configuration: VaultConfiguration(now: clock.now),
            cost: .insecureForTestsOnly())
        return AuthContext(
            AuthEnvironment(
                .init(
                    passcodes: passcodes, readerLookup: .found(reader), keyCache: keys, reuseMarkers: reuseMarkers,
                    attempts: attempts, interaction: interaction, remoteSession: { remoteSession }, now: clock.now,
                    testReaderChosen: testReaderChosen, systemService: SystemServiceClient(socketPath: socketPath),
                    fprintd: fprintd, fprintdChosen: fprintd != nil)))
    }

    /// A user who types `secrets` at the prompts (from a script: one try per prompt).
    func user(typing secrets: String...) -> ScriptedUser { ScriptedUser(secrets: secrets) }

    private func setUp() async throws {
        let creator = context(user(typing: Self.passcode, Self.passcode), testReaderChosen: !hardwareVault)
        _ = try await PasscodeManagement(creator.environment).setPasscode().close()
        if !hardwareVault {
            touches.queue(.finger(.rightIndex))
            _ = try await Enrollment(context(user(typing: Self.passcode)).environment).enroll(
                .rightIndex, username: "parity", confirmReplacing: { _ in false }, updates: { _ in })
        }
        if custody == .system {
            let moved = try await ModeMigration(context(user(typing: Self.passcode)).environment).enableSystemMode()
            #expect(moved.moved == (hardwareVault ? [] : [.rightIndex]))
            // The passcode again: the key is cached for touches, as in user mode after setUp.
            _ = try await Locking(context(user(typing: Self.passcode)).environment).unlock()
        }
        if fprintd != nil {
            // fprintd enrolls the finger, and the vault takes fprintd's fingers (the passcode).
            touches.queue(.finger(.rightIndex))
            let accepted = try await Enrollment(context(user(typing: Self.passcode)).environment).enrollWithFprintd(
                .rightIndex, confirmReplacing: { _ in false }, updates: { _ in })
            #expect(accepted.fingers == [.rightIndex])
            // The acceptance proved the passcode to the service but cached no key there.
            if custody == .system { _ = try await Locking(context(user(typing: Self.passcode)).environment).unlock() }
        }
        #expect(touches.waiting == 0)
        #expect(try VaultStatusReport(context(user()).environment).status().unlocked)
    }

    // MARK: What a scenario does and reads

    var status: VaultStatus {
        get throws { try VaultStatusReport(context(user()).environment).status() }
    }

    /// `verify`: one touch; the error's code when it fails. `remoteSession`: why the session is
    /// remote, as the detector would say it.
    func verify(_ finger: Finger? = nil, remoteSession: String? = nil) async -> AuthError.Code? {
        await verifyError(finger, remoteSession: remoteSession)?.code
    }

    func verifyError(_ finger: Finger? = nil, remoteSession: String? = nil) async -> AuthError? {
        do {
            _ = try await TouchVerification(context(user(), remoteSession: remoteSession).environment).verifyTouch(finger: finger)
            return nil
        } catch let error as AuthError {
            return error
        } catch {
            Issue.record("verify failed with \(error)")
            return AuthError(.dataError, "\(error)")
        }
    }

    /// `verify` in a task of its own, to be cancelled as Ctrl-C cancels it.
    func verifyInTask() -> Task<Void, any Error> {
        let environment = context(user()).environment
        return Task { _ = try await TouchVerification(environment).verifyTouch(finger: nil) }
    }

    /// `notes`' unlock: a touch, else the passcode `typing`; the error when it fails.
    func openNotesError(typing secrets: String...) async -> (AuthError?, ScriptedUser) {
        let user = ScriptedUser(secrets: secrets)
        do {
            try await context(user).openNotes().close()
            return (nil, user)
        } catch let error as AuthError {
            return (error, user)
        } catch {
            Issue.record("the unlock failed with \(error)")
            return (AuthError(.dataError, "\(error)"), user)
        }
    }

    /// Opens the notes as `notes list` does (a touch, else the passcode `typing`); what the user
    /// went through.
    func openNotes(typing secrets: String...) async throws -> ScriptedUser {
        let user = ScriptedUser(secrets: secrets)
        try await context(user).openNotes().close()
        return user
    }

    /// One passcode attempt from a script; the error's code when it is refused.
    func passcodeUnlock(_ passcode: String) async -> AuthError.Code? {
        do {
            try await context(ScriptedUser(secrets: [passcode], fromScript: true)).unlockWithPasscode(reason: "parity")
                .close()
            return nil
        } catch let error as AuthError {
            return error.code
        } catch {
            Issue.record("the passcode unlock failed with \(error)")
            return .dataError
        }
    }
}
