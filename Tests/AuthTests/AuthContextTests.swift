import Auth
import AuthCore
import Crypto
import FingerlockTestSupport
import Fingerprint
import Foundation
import GRDB
import Testing
import Vault

/// Removes a test's scratch directory when the last reference to it goes.
final class DirectoryRemoval: Sendable {
    let path: String
    init(_ path: String) { self.path = path }
    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// One fingerlock installation for a test: data directory, clock, key cache, counters.
struct Installation {
    let directory: String
    let clock = TestClock()
    let cache: InMemoryKeyCache
    /// The reuse window's markers, apart from the keys as in the CLI.
    let markers: InMemoryKeyCache
    let attempts: FileAttemptStore
    static let passcode = "plum tree 42"
    /// Removes the directory once the test no longer holds this installation (or a copy of it).
    private let removal: DirectoryRemoval

    init() {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("fl-auth-\(UUID().uuidString)").path
        removal = DirectoryRemoval(directory)
        cache = InMemoryKeyCache(now: clock.now)
        markers = InMemoryKeyCache(now: clock.now)
        attempts = FileAttemptStore(dataDirectory: directory)
    }

    func context(
        reader: (any FingerprintReader)?, interaction: any AuthInteraction, environment: [String: String] = [:],
        cache: (any KeyCache)? = nil, readerProblem: FingerprintError? = nil
    ) -> AuthContext {
        context(.found(reader, problem: readerProblem), interaction: interaction, environment: environment, cache: cache)
    }

    func context(
        _ lookup: ReaderLookup, interaction: any AuthInteraction, environment: [String: String] = [:],
        cache: (any KeyCache)? = nil
    ) -> AuthContext {
        AuthContext(
            AuthEnvironment(
                .init(
                    passcodes: passcodes, readerLookup: lookup, keyCache: cache ?? self.cache, reuseMarkers: markers, attempts: attempts,
                    interaction: interaction, remoteSession: { RemoteSessionDetector(environment: environment, probe: FakeSessionProbe()).reason() },
                    now: clock.now)))
    }

    /// The vault's real master key (what a fake fingerlockd releases).
    func masterKey() throws -> SymmetricKey {
        let vault = try passcodes.open(with: .passcode(Self.passcode))
        defer { vault.close() }
        return try vault.exportMasterKey()
    }

    var passcodes: VaultPasscodeRepository {
        VaultPasscodeRepository(
            dataDirectory: directory, configuration: VaultConfiguration(now: clock.now), cost: .insecureForTestsOnly())
    }

    static func reader(_ touches: [SimulatedTouch]) -> SimulatedReader {
        SimulatedReader(touches: ScriptedTouchSource(touches), enrollStages: 1, now: Date.init)
    }

    /// Creates the vault (a test vault unless `hardware`) and enrolls `fingers` on the simulated reader.
    @discardableResult
    func setUp(fingers: [Finger] = [.rightIndex], hardware: Bool = false) async throws -> String {
        let interaction = ScriptedInteraction(secrets: [Self.passcode, Self.passcode])
        let setup = context(reader: hardware ? nil : Self.reader([]), interaction: interaction)
        let vault = try await PasscodeManagement(setup.environment).setPasscode()
        defer { vault.close() }
        let recovery = try #require(interaction.recoveryKeys.last)
        let enrolling = Self.reader(fingers.map(SimulatedTouch.finger))
        for finger in fingers {
            let print = try await enrolling.enroll(finger, username: "t", timeout: .seconds(1)) { _ in }
            try VaultPrintStore(vault: vault).save(print)
        }
        return recovery
    }
}

/// Every (policy × situation) the design names, with the simulated reader, an in-memory key cache
/// and a fake clock. Each asserts the outcome, the counters and what the user was told.
@Suite(.timed, .timeLimit(.minutes(1))) struct AuthContextTests {
    let install = Installation()

    // MARK: biometrics-or-passcode

    @Test func matchOnTheFirstTryReleasesTheCachedKey() async throws {
        try await install.setUp()
        let interaction = ScriptedInteraction()
        let vault = try await install.context(reader: Installation.reader([.finger(.rightIndex)]), interaction: interaction)
            .evaluate(.biometricsOrPasscode, reason: "test")
        #expect(try vault.noteCount() == 0)
        #expect(interaction.prompts.isEmpty)
        #expect(interaction.scans == 1)
        #expect(try install.attempts.read() == AttemptState())
    }

    @Test func aRetryHintDoesNotCountAsATry() async throws {
        try await install.setUp()
        let interaction = ScriptedInteraction()
        _ = try await install.context(reader: Installation.reader([.retry(.centerFinger), .finger(.rightIndex)]), interaction: interaction)
            .evaluate(.biometricsOrPasscode, reason: "test")
        #expect(interaction.notices == [RetryReason.centerFinger.hint])
        #expect(try install.attempts.read().failedTouches == 0)
    }

    @Test func threeNoMatchesFallBackToThePasscode() async throws {
        try await install.setUp()
        let interaction = ScriptedInteraction(secrets: [Installation.passcode])
        _ = try await install.context(reader: Installation.reader([.unknown, .finger(.leftThumb), .unknown]), interaction: interaction)
            .evaluate(.biometricsOrPasscode, reason: "open notes")
        #expect(interaction.scans == 3)
        #expect(interaction.notices == ["No match. Try again.", "No match. Try again.", "No match after 3 tries."])
        #expect(interaction.prompts == ["Passcode (open notes): "])
        // The passcode clears the failed touches.
        #expect(try install.attempts.read() == AttemptState())
    }

    @Test func askingForThePasscodeDuringTheScanKeepsWhatWasTyped() async throws {
        try await install.setUp()
        let interaction = ScriptedInteraction(secrets: [Installation.passcode], scanActions: [.askPasscode(typed: "plum")])
        _ = try await install.context(reader: Installation.reader([]), interaction: interaction)
            .evaluate(.biometricsOrPasscode, reason: "r")
        #expect(interaction.typedAhead == ["plum"])
        #expect(interaction.notices.isEmpty)
        #expect(try install.attempts.read().failedTouches == 0)
    }

    @Test(arguments: [
        (SimulatedTouch.timeout, "No finger was detected within 30 s."),
        (.unplug, "The fingerprint reader was unplugged."),
        (.busy, "The fingerprint reader is busy: another program, such as fprintd, may be using it."),
        (.error, "The fingerprint reader reported a device error."),
    ])
    func readerFailuresFallBackSayingWhy(touch: SimulatedTouch, message: String) async throws {
        try await install.setUp()
        let interaction = ScriptedInteraction(secrets: [Installation.passcode])
        _ = try await install.context(reader: Installation.reader([touch]), interaction: interaction)
            .evaluate(.biometricsOrPasscode, reason: "r")
        #expect(interaction.notices == [message])
        #expect(interaction.prompts.count == 1)
        #expect(try install.attempts.read().failedTouches == 0)
    }

    @Test func userFallbackFromTheSimulatedPromptGoesStraightToThePasscode() async throws {
        try await install.setUp()
        let interaction = ScriptedInteraction(secrets: [Installation.passcode])
        let reader = SimulatedReader(touches: ScriptedTouchSource([.fallback]), now: Date.init)
        _ = try await install.context(reader: reader, interaction: interaction).evaluate(.biometricsOrPasscode, reason: "r")
        #expect(interaction.notices.isEmpty)
        #expect(interaction.prompts.count == 1)
    }

    @Test func noReaderFallsBack() async throws {
        try await install.setUp()
        let interaction = ScriptedInteraction(secrets: [Installation.passcode])
        _ = try await install.context(reader: nil, interaction: interaction).evaluate(.biometricsOrPasscode, reason: "r")
        #expect(interaction.notices == ["No fingerprint reader is connected."])
        #expect(interaction.scans == 0)
    }

    @Test func nothingEnrolledFallsBack() async throws {
        try await install.setUp(fingers: [])
        let interaction = ScriptedInteraction(secrets: [Installation.passcode])
        _ = try await install.context(reader: Installation.reader([.finger(.rightIndex)]), interaction: interaction)
            .evaluate(.biometricsOrPasscode, reason: "r")
        #expect(interaction.notices == ["No finger is enrolled on simulated:0; run `fingerlock enroll`."])
        #expect(interaction.scans == 0)
    }

    @Test func noCachedKeyNeedsThePasscodeAndThenCachesIt() async throws {
        try await install.setUp()
        let context = install.context(reader: Installation.reader([.finger(.rightIndex)]), interaction: ScriptedInteraction())
        #expect(try Locking(context.environment).lock().forgotten > 0)
        let interaction = ScriptedInteraction(secrets: [Installation.passcode])
        _ = try await install.context(reader: Installation.reader([.finger(.rightIndex)]), interaction: interaction)
            .evaluate(.biometricsOrPasscode, reason: "r")
        #expect(interaction.scans == 0)
        #expect(interaction.notices == ["The passcode is needed first (after a reboot, `fingerlock lock`, or when the cached key expires)."])
        // Cached again: the next evaluation is a touch.
        let next = ScriptedInteraction()
        _ = try await install.context(reader: Installation.reader([.finger(.rightIndex)]), interaction: next).evaluate(
            .biometricsOrPasscode, reason: "r")
        #expect(next.prompts.isEmpty)
    }

    @Test func anExpiredKeyNeedsThePasscode() async throws {
        try await install.setUp()
        install.clock.advance(8 * 3600 + 1)
        let interaction = ScriptedInteraction(secrets: [Installation.passcode])
        _ = try await install.context(reader: Installation.reader([.finger(.rightIndex)]), interaction: interaction)
            .evaluate(.biometricsOrPasscode, reason: "r")
        #expect(interaction.scans == 0)
        #expect(interaction.prompts.count == 1)
    }

    @Test func aPlantedWrongKeyIsRefusedRemovedAndNeverUsed() async throws {
        try await install.setUp()
        let storeID = try Vault.storeID(in: install.directory).uuidString
        try install.cache.store(SymmetricKey(size: .bits256), name: storeID, lifetime: .seconds(3600))
        let interaction = ScriptedInteraction(secrets: [Installation.passcode])
        let vault = try await install.context(reader: Installation.reader([.finger(.rightIndex)]), interaction: interaction)
            .evaluate(.biometricsOrPasscode, reason: "r")
        #expect(interaction.scans == 0)
        #expect(interaction.notices == ["The cached key does not open this vault; it was removed, so the passcode is needed."])
        // The passcode unlock put the right key back.
        let cached = try #require(try install.cache.load(name: storeID))
        #expect(bytes(cached) == bytes(try vault.exportMasterKey()))
    }

    @Test func fiveFailedTouchesAcrossContextsLockOutUntilThePasscode() async throws {
        try await install.setUp()
        // Two evaluations of 3 and 2 no-matches, each rescued by the passcode... would reset; so use verify-style single touches.
        for _ in 0..<5 {
            let interaction = ScriptedInteraction()
            await #expect(throws: AuthError.self) {
                _ = try await TouchVerification(install.context(reader: Installation.reader([.unknown]), interaction: interaction).environment)
                    .verifyTouch(finger: nil)
            }
        }
        #expect(try install.attempts.read().failedTouches == 5)
        let locked = ScriptedInteraction()
        let error = await #expect(throws: AuthError.self) {
            _ = try await TouchVerification(install.context(reader: Installation.reader([.finger(.rightIndex)]), interaction: locked).environment)
                .verifyTouch(finger: nil)
        }
        #expect(error?.code == .biometryLockout)
        #expect(locked.scans == 0)

        let interaction = ScriptedInteraction(secrets: [Installation.passcode])
        _ = try await install.context(reader: Installation.reader([.finger(.rightIndex)]), interaction: interaction)
            .evaluate(.biometricsOrPasscode, reason: "r")
        #expect(interaction.notices == ["Too many failed touches: fingerprint unlock is off until the passcode is entered."])
        #expect(interaction.scans == 0)
        #expect(try install.attempts.read().failedTouches == 0)
        let after = ScriptedInteraction()
        _ = try await install.context(reader: Installation.reader([.finger(.rightIndex)]), interaction: after).evaluate(
            .biometricsOrPasscode, reason: "r")
        #expect(after.prompts.isEmpty)
    }

    @Test func theFifthFailureMidEvaluationLocksOutAtOnce() async throws {
        try await install.setUp()
        try install.attempts.update { $0.failedTouches = 3 }
        let interaction = ScriptedInteraction(secrets: [Installation.passcode])
        _ = try await install.context(reader: Installation.reader([.unknown, .unknown, .finger(.rightIndex)]), interaction: interaction)
            .evaluate(.biometricsOrPasscode, reason: "r")
        #expect(interaction.scans == 2)
        #expect(
            interaction.notices.last
                == "No match. That was the 5th failed touch in a row: the key is forgotten, and fingerprint unlock is off until the passcode is entered."
        )
    }

    @Test func passcodeDelaysEscalateAndPersistAcrossContexts() async throws {
        try await install.setUp()
        _ = try Locking(install.context(reader: nil, interaction: ScriptedInteraction()).environment).lock()
        func attempt(_ passcode: String) async throws {
            let interaction = ScriptedInteraction(answers: [.secret(passcode)], passcodeFromScript: true)
            _ = try await install.context(reader: nil, interaction: interaction).unlockWithPasscode(reason: "r")
        }
        for _ in 0..<5 {
            let error = await #expect(throws: AuthError.self) { try await attempt("wrong passcode") }
            #expect(error?.code == .authenticationFailed)
        }
        let early = await #expect(throws: AuthError.self) { try await attempt(Installation.passcode) }
        #expect(early?.code == .passcodeDelay)
        #expect(early?.message == "Too many wrong passcodes (5): try again in 1 min.")
        install.clock.advance(61)
        _ = await #expect(throws: AuthError.self) { try await attempt("wrong again") }
        install.clock.advance(60)
        let second = await #expect(throws: AuthError.self) { try await attempt(Installation.passcode) }
        #expect(second?.message == "Too many wrong passcodes (6): try again in 4 min.")
        install.clock.advance(240)
        try await attempt(Installation.passcode)
        #expect(try install.attempts.read() == AttemptState())
    }

    @Test func aDamagedVaultIsNoWrongPasscodeAndCountsNone() async throws {
        try await install.setUp()
        _ = try Locking(install.context(reader: nil, interaction: ScriptedInteraction()).environment).lock()
        let earlier = install.clock.now()
        try install.attempts.update {
            $0.failedPasscodes = 2
            $0.lastPasscodeFailure = earlier
        }
        install.clock.advance(600)
        // Cut after its first page: the slots can no longer be read, so no passcode can be judged.
        #expect(truncate(install.directory + "/vault.sqlite", 4096) == 0)
        for passcode in [Installation.passcode, "wrong passcode", Installation.passcode, "wrong", "again", "and again"] {
            let interaction = ScriptedInteraction(answers: [.secret(passcode)], passcodeFromScript: true)
            let error = await #expect(throws: AuthError.self) {
                _ = try await install.context(reader: nil, interaction: interaction).unlockWithPasscode(reason: "r")
            }
            #expect(error?.code == .dataError, "\(String(describing: error))")
        }
        #expect(try install.attempts.read() == AttemptState(failedPasscodes: 2, lastPasscodeFailure: earlier))
    }

    @Test func aDelayStartedByAnotherRunWhileThisOneWaitedAtItsPromptStillHolds() async throws {
        try await install.setUp()
        _ = try Locking(install.context(reader: nil, interaction: ScriptedInteraction()).environment).lock()
        /// Another process fails its fifth passcode while this one sits at its prompt.
        final class Racing: AuthInteraction, @unchecked Sendable {
            // Invariant: used by one evaluation at a time in this test.
            let attempts: FileAttemptStore
            let now: Date
            init(_ attempts: FileAttemptStore, now: Date) {
                self.attempts = attempts
                self.now = now
            }
            var canAskPasscode: Bool { true }
            var passcodeFromScript: Bool { true }
            func notify(_ message: String) {}
            func scan<Scanned: Sendable>(
                prompt: String, _ operation: @escaping @Sendable () async throws -> Scanned
            ) async throws -> ScanOutcome<Scanned> {
                .scanned(try await operation())
            }
            func askSecret(prompt: String, typedAhead: String) async throws -> String {
                let now = now
                try attempts.update {
                    $0.failedPasscodes = 5
                    $0.lastPasscodeFailure = now
                }
                return "a guess in parallel"
            }
            func presentRecoveryKey(_ text: String) async throws {}
        }
        let error = await #expect(throws: AuthError.self) {
            _ = try await install.context(reader: nil, interaction: Racing(install.attempts, now: install.clock.now()))
                .unlockWithPasscode(reason: "r")
        }
        #expect(error?.code == .passcodeDelay)
        #expect(try install.attempts.read().failedPasscodes == 5)
    }

    @Test func aDeletedSettingIsTamperingNotADefault() async throws {
        try await install.setUp()
        let vault = try await install.context(reader: nil, interaction: ScriptedInteraction(secrets: [Installation.passcode])).unlockWithPasscode(
            reason: "r")
        var settings = try SecuritySettings(vault: vault)
        try settings.set(.cacheExpiry, to: "2m")
        try settings.save(.cacheExpiry, to: vault)
        vault.close()
        let database = try DatabaseQueue(path: install.directory + "/vault.sqlite")
        try await database.write { db in try db.execute(sql: "DELETE FROM settings") }
        try database.close()
        // Reading the settings (to cache the key for their expiry) reports the deletion.
        let error = await #expect(throws: AuthError.self) {
            _ = try await install.context(reader: nil, interaction: ScriptedInteraction(secrets: [Installation.passcode])).unlockWithPasscode(
                reason: "r")
        }
        #expect(error?.code == .dataError)
        #expect(error?.message.contains("integrity") == true)
    }

    @Test func aTemplatePlantedOutsideFingerlockIsIgnored() async throws {
        try await install.setUp(fingers: [])
        // Prints in plain files (as an earlier version kept them) are never consulted: a print planted there unlocks nothing.
        let planted = try await Installation.reader([.finger(.leftThumb)]).enroll(.leftThumb, username: "x", timeout: .seconds(1)) { _ in }
        let directory = install.directory + "/prints/simulated/0"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        try encoder.encode(planted).write(to: URL(fileURLWithPath: directory + "/left-thumb"))
        let interaction = ScriptedInteraction(secrets: [Installation.passcode])
        _ = try await install.context(reader: Installation.reader([.finger(.leftThumb)]), interaction: interaction)
            .evaluate(.biometricsOrPasscode, reason: "r")
        #expect(interaction.scans == 0)
        #expect(interaction.prompts.count == 1)
    }

    @Test func aHardwareVaultRefusesSimulatedTouches() async throws {
        try await install.setUp(fingers: [], hardware: true)
        let interaction = ScriptedInteraction(secrets: [Installation.passcode])
        _ = try await install.context(reader: Installation.reader([.finger(.rightIndex)]), interaction: interaction)
            .evaluate(.biometricsOrPasscode, reason: "r")
        #expect(interaction.scans == 0)
        #expect(interaction.notices == ["This vault was set up with real hardware; it does not accept the test reader simulated:0."])
    }

    @Test func aRemoteSessionSkipsTheFingerprint() async throws {
        try await install.setUp()
        let interaction = ScriptedInteraction(secrets: [Installation.passcode])
        _ = try await install.context(
            reader: Installation.reader([.finger(.rightIndex)]), interaction: interaction,
            environment: ["SSH_CONNECTION": "192.0.2.1 50000 192.0.2.2 22"]
        ).evaluate(.biometricsOrPasscode, reason: "r")
        #expect(interaction.scans == 0)
        #expect(interaction.notices.first?.contains("remote (SSH) session") == true)
    }

    @Test func withoutATerminalThePasscodeIsRequiredNotAsked() async throws {
        try await install.setUp()
        let interaction = ScriptedInteraction(canAskPasscode: false)
        let error = await #expect(throws: AuthError.self) {
            _ = try await install.context(reader: nil, interaction: interaction).evaluate(.biometricsOrPasscode, reason: "r")
        }
        #expect(error?.code == .passcodeRequired)
        #expect(error?.message.contains("--passcode-stdin") == true)
        #expect(interaction.prompts.isEmpty)
        #expect(await install.context(reader: nil, interaction: interaction).canEvaluate(.biometricsOrPasscode)?.code == .passcodeRequired)
    }

    /// After `lock`, with no terminal: the reason is said once, then how to give the passcode.
    @Test func withoutATerminalAfterLockTheReasonIsSaidOnce() async throws {
        try await install.setUp()
        #expect(try Locking(install.context(reader: nil, interaction: ScriptedInteraction()).environment).lock().forgotten > 0)
        let interaction = ScriptedInteraction(canAskPasscode: false)
        let error = await #expect(throws: AuthError.self) {
            _ = try await install.context(reader: Installation.reader([.finger(.rightIndex)]), interaction: interaction)
                .evaluate(.biometricsOrPasscode, reason: "r")
        }
        #expect(error?.code == .passcodeRequired)
        #expect(
            error?.message
                == "The passcode is needed first (after a reboot, `fingerlock lock`, or when the cached key expires). "
                + "There is no terminal to ask for it: use --passcode-stdin or --passcode-fd N.")
        #expect(interaction.scans == 0)
    }

    @Test func ctrlCAtThePasscodePromptCancels() async throws {
        try await install.setUp()
        let interaction = ScriptedInteraction(answers: [.cancel])
        let error = await #expect(throws: AuthError.self) {
            _ = try await install.context(reader: nil, interaction: interaction).evaluate(.biometricsOrPasscode, reason: "r")
        }
        #expect(error?.code == .userCancel)
    }

    @Test func aScriptedPasscodeSkipsTheReader() async throws {
        try await install.setUp()
        let interaction = ScriptedInteraction(answers: [.secret(Installation.passcode)], passcodeFromScript: true)
        _ = try await install.context(reader: Installation.reader([.finger(.rightIndex)]), interaction: interaction)
            .evaluate(.biometricsOrPasscode, reason: "r")
        #expect(interaction.scans == 0)
    }

    @Test func theReuseWindowSkipsTheTouchForAWhile() async throws {
        try await install.setUp()
        let setup = try await install.context(reader: nil, interaction: ScriptedInteraction(secrets: [Installation.passcode])).unlockWithPasscode(
            reason: "r")
        var settings = try SecuritySettings(vault: setup)
        try settings.set(.reuseWindow, to: "2m")
        try settings.save(.reuseWindow, to: setup)
        // The passcode unlock opened the window (measured with the setting in force now).
        let first = ScriptedInteraction()
        _ = try await install.context(reader: Installation.reader([]), interaction: first).evaluate(.biometricsOrPasscode, reason: "r")
        #expect(first.scans == 0)
        install.clock.advance(121)
        let second = ScriptedInteraction()
        _ = try await install.context(reader: Installation.reader([.finger(.rightIndex)]), interaction: second).evaluate(
            .biometricsOrPasscode, reason: "r")
        #expect(second.scans == 1)
        // The matching touch opened a new one; releasing the key in it does not lengthen it.
        install.clock.advance(60)
        let third = ScriptedInteraction()
        _ = try await install.context(reader: Installation.reader([]), interaction: third).evaluate(.biometricsOrPasscode, reason: "r")
        #expect(third.scans == 0)
        install.clock.advance(61)
        let fourth = ScriptedInteraction()
        _ = try await install.context(reader: Installation.reader([.finger(.rightIndex)]), interaction: fourth).evaluate(
            .biometricsOrPasscode, reason: "r")
        #expect(fourth.scans == 1)
    }

    // MARK: biometrics only

    @Test(arguments: [
        ([SimulatedTouch.unknown, .unknown, .unknown], AuthError.Code.authenticationFailed),
        ([.timeout], .timeout),
        ([.unplug], .biometryNotAvailable),
        ([.fallback], .userFallback),
    ])
    func biometricsOnlyReturnsErrorsInsteadOfPrompting(touches: [SimulatedTouch], code: AuthError.Code) async throws {
        try await install.setUp()
        let interaction = ScriptedInteraction(secrets: [Installation.passcode])
        let error = await #expect(throws: AuthError.self) {
            _ = try await install.context(reader: Installation.reader(touches), interaction: interaction).evaluate(.biometrics, reason: "r")
        }
        #expect(error?.code == code)
        #expect(interaction.prompts.isEmpty)
    }

    @Test func canEvaluateSaysWhyBiometricsAreUnavailable() async throws {
        let fresh = install.context(reader: nil, interaction: ScriptedInteraction())
        #expect(await fresh.canEvaluate(.biometrics)?.code == .passcodeNotSet)
        try await install.setUp()
        #expect(await install.context(reader: Installation.reader([]), interaction: ScriptedInteraction()).canEvaluate(.biometrics) == nil)
        #expect(await install.context(reader: nil, interaction: ScriptedInteraction()).canEvaluate(.biometrics)?.unavailability == .noReader)
        #expect(await install.context(reader: nil, interaction: ScriptedInteraction()).canEvaluate(.biometricsOrPasscode) == nil)
        let noKeyring = InMemoryKeyCache(now: install.clock.now, unavailableReason: "no keyring")
        #expect(
            await install.context(reader: Installation.reader([]), interaction: ScriptedInteraction(), cache: noKeyring).canEvaluate(.biometrics)?
                .unavailability == .noKeyring)
    }

    // MARK: passcode management

    @Test func setChangeAndResetThePasscode() async throws {
        let recovery = try await install.setUp()
        let mismatch = ScriptedInteraction(secrets: [
            "wrong guess", Installation.passcode, "tangerine 1", "tangerine 2", "tangerine 9", "tangerine 9",
        ])
        _ = try await PasscodeManagement(install.context(reader: nil, interaction: mismatch).environment).changePasscode()
        #expect(mismatch.notices == ["That passcode is not right.", "The passcodes didn't match. Try again."])
        #expect(mismatch.unusedAnswers == 0)
        _ = try Locking(install.context(reader: nil, interaction: mismatch).environment).lock()
        let old = ScriptedInteraction(answers: [.secret(Installation.passcode)], passcodeFromScript: true)
        await #expect(throws: AuthError.self) { _ = try await install.context(reader: nil, interaction: old).unlockWithPasscode(reason: "r") }
        let new = ScriptedInteraction(answers: [.secret("tangerine 9")], passcodeFromScript: true)
        _ = try await install.context(reader: nil, interaction: new).unlockWithPasscode(reason: "r")

        let reset = ScriptedInteraction(secrets: [recovery.lowercased(), "forgotten no more", "forgotten no more"])
        _ = try await PasscodeManagement(install.context(reader: nil, interaction: reset).environment).resetPasscode()
        let after = ScriptedInteraction(answers: [.secret("forgotten no more")], passcodeFromScript: true)
        _ = try await install.context(reader: nil, interaction: after).unlockWithPasscode(reason: "r")
    }

    @Test func aSecondSetIsRefusedAndAScriptedMismatchFails() async throws {
        try await install.setUp()
        let again = ScriptedInteraction(secrets: ["another one", "another one"])
        let error = await #expect(throws: AuthError.self) {
            _ = try await PasscodeManagement(install.context(reader: nil, interaction: again).environment).setPasscode()
        }
        #expect(error?.code == .invalidInput)

        let other = Installation()
        let scripted = ScriptedInteraction(answers: [.secret("first one"), .secret("second one")], passcodeFromScript: true)
        let mismatch = await #expect(throws: AuthError.self) {
            _ = try await PasscodeManagement(other.context(reader: nil, interaction: scripted).environment).setPasscode()
        }
        #expect(mismatch?.message == "The passcodes didn't match. Try again.")
        #expect(!Vault.exists(in: other.directory))
    }

    @Test func theVaultKindFollowsTheReaderAtCreation() async throws {
        try await install.setUp()
        let vault = try await install.context(reader: nil, interaction: ScriptedInteraction(secrets: [Installation.passcode])).unlockWithPasscode(
            reason: "r")
        #expect(try vault.kind == .test)
        let hardware = Installation()
        try await hardware.setUp(fingers: [], hardware: true)
        let other = try await hardware.context(reader: nil, interaction: ScriptedInteraction(secrets: [Installation.passcode])).unlockWithPasscode(
            reason: "r")
        #expect(try other.kind == .hardware)
    }
}
