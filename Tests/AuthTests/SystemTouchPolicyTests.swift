import AuthCore
import Crypto
import FingerlockTestSupport
import Fingerprint
import Foundation
import Synchronization
import Testing
import TrustedPlatform
import Vault

@testable import Auth

/// A vault whose recorded mode the test sets (system by default; its slots stay user-mode: the
/// passcode path is not what these tests are about), so the policy takes fingerlockd's path.
/// A passcode slot sealed for system mode (`system enable`) only flips the mode, after running
/// `onEnable` (as a parallel run could).
final class SystemModeRepository: PasscodeRepository {
    let base: VaultPasscodeRepository
    let recorded: Mutex<VaultMode>
    let onEnable: @Sendable () -> Void

    init(base: VaultPasscodeRepository, mode: VaultMode = .system, onEnable: @escaping @Sendable () -> Void = {}) {
        self.base = base
        self.recorded = Mutex(mode)
        self.onEnable = onEnable
    }

    var hasPasscode: Bool { base.hasPasscode }
    func create(passcode: String, kind: VaultKind, recoveryKey: RecoveryKey, sealer: any PasscodeSlotSealer, joining: VaultJoinKey?)
        throws(VaultError) -> Vault
    {
        try base.create(passcode: passcode, kind: kind, recoveryKey: recoveryKey, sealer: sealer, joining: joining)
    }
    func claimedPasscodeSlot() -> Data? { base.claimedPasscodeSlot() }
    func open(with credential: VaultCredential, sealers: PasscodeSealers) throws(VaultError) -> Vault {
        try base.open(with: credential, sealers: sealers)
    }
    func replacePasscode(of vault: Vault, with passcode: String, sealer: any PasscodeSlotSealer) throws(VaultError) {
        try base.replacePasscode(of: vault, with: passcode, sealer: VaultPasscodeSealer())
    }
    func movePasscodeSlot(of vault: Vault, from mode: VaultMode, to sealer: any PasscodeSlotSealer, passcode: String)
        throws(VaultError)
    {
        guard sealer.mode == .system else {
            return try base.movePasscodeSlot(of: vault, from: mode, to: sealer, passcode: passcode)
        }
        onEnable()
        recorded.withLock { $0 = .system }
    }
    func rekey(
        _ vault: Vault, passcode: String, sealer: any PasscodeSlotSealer, recoveryKey: RecoveryKey,
        progress: ((_ done: Int, _ total: Int) -> Void)?
    )
        throws(VaultError)
    {
        try base.rekey(vault, passcode: passcode, sealer: VaultPasscodeSealer(), recoveryKey: recoveryKey, progress: progress)
    }
    /// The proof of a passcode for the fake service, which checks none: the slot as it is (user
    /// mode's, see above).
    func sealedPasscodeSlot(passcode: String, mode: VaultMode) throws(VaultError) -> SealedPasscodeSlot {
        try base.sealedPasscodeSlot(passcode: passcode, mode: .user)
    }
    /// The unauthenticated reads of the vault's database, in order.
    let reads = Mutex<[String]>([])
    func storeID() throws(VaultError) -> UUID {
        reads.withLock { $0.append("storeID") }
        return try base.storeID()
    }
    func header() throws(VaultError) -> VaultHeader {
        reads.withLock { $0.append("header") }
        return VaultHeader(storeID: try base.storeID(), mode: recorded.withLock { $0 })
    }
    func stageRestore(
        from backupPath: String, using credential: VaultCredential, sealers: PasscodeSealers, progress: ((_ done: Int, _ total: Int) -> Void)?
    )
        throws(VaultError) -> StagedRestore
    {
        try base.stageRestore(from: backupPath, using: credential, sealers: sealers, progress: progress)
    }
}

/// fingerlockd's reader, scripted: each touch's outcome in turn; records the calls.
final class FakeSystemFingers: SystemService {
    enum Touch: Sendable {
        case match(Finger)
        case fail(SystemServiceError.Code)
    }

    let key: SymmetricKey
    private let touches: Mutex<[Touch]>
    let calls = Mutex<[String]>([])
    /// What the service was told (SetVaultPolicy), and what it answers for the policy.
    let told = Mutex<[(policy: SystemVaultPolicy, counts: AttemptState?)]>([])
    let answeredPolicy: SystemVaultPolicy?
    /// Runs at each imported print (`system enable`), as a parallel run could.
    let onImport: @Sendable () -> Void

    /// What `lock` throws (nil: it forgets the key it holds).
    let lockFailure: SystemServiceError?
    /// fprintd's set as the service finds it when asked to accept it (nil: not used here).
    let fprintdSet: AcceptedFingers?

    init(
        key: SymmetricKey, touches: [Touch], policy: SystemVaultPolicy? = nil, lockFailure: SystemServiceError? = nil,
        fprintdSet: AcceptedFingers? = nil, onImport: @escaping @Sendable () -> Void = {}
    ) {
        self.fprintdSet = fprintdSet
        self.key = key
        self.touches = Mutex(touches)
        self.answeredPolicy = policy
        self.lockFailure = lockFailure
        self.onImport = onImport
    }

    // The passcode slot: registration only (the slots stay user-mode, see `SystemModeRepository`).
    func register(vault: UUID) throws { calls.withLock { $0.append("register") } }
    func seal(_ key: SymmetricKey, for slot: PasscodeSlotBinding, authorizedBy currentKey: SymmetricKey?, tpm: TPMBinding?) throws -> Data {
        throw SystemServiceError(.failure("not used here"))
    }
    func unlock(_ slot: SealedPasscodeSlot, notify: @escaping @Sendable (String) -> Void) throws -> SymmetricKey {
        throw SystemServiceError(.failure("not used here"))
    }
    func useFprintdFingers(_ use: Bool, proof: SealedPasscodeSlot) async throws -> AcceptedFingers? {
        guard let fprintdSet else { throw SystemServiceError(.failure("not used here")) }
        calls.withLock { $0.append(use ? "use fprintd" : "stop fprintd") }
        return use ? fprintdSet : nil
    }
    func forgetVault(_ slot: SealedPasscodeSlot) throws { throw SystemServiceError(.failure("not used here")) }
    func status(vault: UUID) throws -> SystemVaultStatus {
        SystemVaultStatus(registered: true, unlocked: false, unlockedSeconds: 0, failedPasscodes: 0, delaySeconds: 0)
    }

    func unlockWithTouch(
        vault: UUID, finger: Finger?, timeout: Duration, reuse: Bool,
        waiting: @escaping @Sendable (OtherUsersRequest) -> Void
    ) async throws -> SystemTouch {
        calls.withLock { $0.append("touch \(timeout.components.seconds)s" + (reuse ? " reuse" : "")) }
        guard let next = touches.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else {
            throw SystemServiceError(.timedOut)
        }
        switch next {
        case .match(let finger):
            return SystemTouch(key: key, finger: finger, reader: ReaderIdentity(driver: "simulated", deviceID: "0"))
        case .fail(let code):
            throw SystemServiceError(code)
        }
    }

    func setPolicy(vault: UUID, key: SymmetricKey, policy: SystemVaultPolicy, counts: AttemptState?) throws {
        calls.withLock { $0.append("policy") }
        told.withLock { $0.append((policy, counts)) }
    }

    func policy(vault: UUID) throws -> SystemVaultPolicy? { answeredPolicy }

    /// No reuse window here: a touch is always needed, with the policy the fake answers.
    func unlockWithoutScan(vault: UUID) async throws -> SystemReuse {
        .scanNeeded(tries: answeredPolicy?.maxTries, scanTimeout: answeredPolicy?.scanTimeout)
    }

    func lock(vault: UUID?) throws -> Bool {
        calls.withLock { $0.append(vault == nil ? "lock all" : "lock") }
        if let lockFailure { throw lockFailure }
        return true
    }

    func enroll(
        _ finger: Finger, proof: SealedPasscodeSlot, timeout: Duration,
        progress: @escaping @Sendable (EnrollEvent) -> Void
    ) async throws -> SystemEnrolledFinger {
        throw SystemServiceError(.timedOut)
    }

    func fingers(vault: UUID) throws -> [SystemEnrolledFinger] { [] }

    func forget(_ finger: Finger, proof: SealedPasscodeSlot) async throws {}
    func importPrint(_ print: EnrolledPrint, proof: SealedPasscodeSlot) async throws { onImport() }
    func exportPrint(_ finger: Finger, proof: SealedPasscodeSlot) throws -> EnrolledPrint {
        throw SystemServiceError(.fingerNotEnrolled(finger))
    }
}

/// The policy for a system-mode vault's touches: the vault opens only with the key the service
/// released, after the tries, hints and lockout the service reports.
@Suite(.timed, .timeLimit(.minutes(1))) struct SystemTouchPolicyTests {
    let install = Installation()

    func context(
        _ fingers: FakeSystemFingers, interaction: ScriptedInteraction, readerLookup: ReaderLookup = .found(nil),
        passcodes: SystemModeRepository? = nil
    ) -> AuthContext {
        AuthContext(
            AuthEnvironment(
                .init(
                    passcodes: passcodes ?? SystemModeRepository(base: install.passcodes), readerLookup: readerLookup,
                    keyCache: install.cache, reuseMarkers: install.markers, attempts: install.attempts, interaction: interaction,
                    remoteSession: { nil }, now: install.clock.now, systemService: fingers)))
    }

    @Test func aMatchOpensTheVaultWithTheReleasedKeyAfterANoMatchAndAHint() async throws {
        try await install.setUp(fingers: [])
        let fingers = FakeSystemFingers(
            key: try install.masterKey(),
            touches: [.fail(.noMatch(failedTouches: 1, touchesLeft: 4)), .fail(.retry(.tooShort)), .match(.rightIndex)])
        // The user-mode set-up cached the key in the user's keyring: gone, the touch path needs none.
        _ = try install.cache.invalidateAll()
        let interaction = ScriptedInteraction(secrets: [])
        let vault = try await context(fingers, interaction: interaction).openNotes()
        vault.close()
        // Never told a policy: the defaults' scan timeout, then the vault's settings once it opened.
        #expect(fingers.calls.withLock { $0 } == ["touch 30s reuse", "touch 30s reuse", "touch 30s reuse", "policy"])
        #expect(interaction.notices.contains("No match. Try again."))
        #expect(interaction.notices.contains(RetryReason.tooShort.hint))
        // Nothing went into the user's keyring.
        #expect(try install.cache.load(name: install.passcodes.storeID().uuidString) == nil)
    }

    /// The service owns the reader: a system-mode vault's touches never look for one here (so the CLI
    /// never opens libfprint for them).
    @Test func touchesNeverLookForAReaderInThisProcess() async throws {
        try await install.setUp(fingers: [])
        _ = try install.cache.invalidateAll()
        let lookups = Atomic<Int>(0)
        let lookup = ReaderLookup.deferred {
            lookups.add(1, ordering: .sequentiallyConsistent)
            return (nil, FingerprintError.noReader())
        }
        let fingers = FakeSystemFingers(key: try install.masterKey(), touches: [.match(.rightIndex), .match(.rightIndex)])
        let verified = try await TouchVerification(context(fingers, interaction: ScriptedInteraction(secrets: []), readerLookup: lookup).environment)
            .verifyTouch(finger: nil)
        #expect(verified.finger == .rightIndex)
        let vault = try await context(fingers, interaction: ScriptedInteraction(secrets: []), readerLookup: lookup).openNotes()
        vault.close()
        try await Task.sleep(for: .milliseconds(50))
        #expect(lookups.load(ordering: .sequentiallyConsistent) == 0)
    }

    /// The store id that names the vault to the service comes with the mode, from one read of the
    /// database before the key is known (each read opens it).
    @Test func aTouchReadsTheVaultOnceBeforeTheKeyIsReleased() async throws {
        try await install.setUp(fingers: [])
        _ = try install.cache.invalidateAll()
        let fingers = FakeSystemFingers(key: try install.masterKey(), touches: [.match(.rightIndex), .match(.rightIndex)])
        let verifying = SystemModeRepository(base: install.passcodes)
        _ = try await TouchVerification(context(fingers, interaction: ScriptedInteraction(secrets: []), passcodes: verifying).environment)
            .verifyTouch(finger: nil)
        #expect(verifying.reads.withLock { $0 } == ["header"])
        let opening = SystemModeRepository(base: install.passcodes)
        try await context(fingers, interaction: ScriptedInteraction(secrets: []), passcodes: opening).openNotes().close()
        #expect(opening.reads.withLock { $0 } == ["header"])
    }

    @Test func aKeyThatDoesNotOpenTheVaultIsRefused() async throws {
        try await install.setUp(fingers: [])
        let fingers = FakeSystemFingers(key: SymmetricKey(size: .bits256), touches: [.match(.rightIndex)])
        await #expect(throws: AuthError.self) {
            _ = try await TouchVerification(context(fingers, interaction: ScriptedInteraction(secrets: [], canAskPasscode: false)).environment)
                .verifyTouch(finger: nil)
        }
    }

    @Test func noCachedKeyInTheServiceFallsBackToThePasscodeAndShortensTheCache() async throws {
        try await install.setUp(fingers: [])
        let fingers = FakeSystemFingers(key: try install.masterKey(), touches: [.fail(.passcodeRequired(lockout: false))])
        let interaction = ScriptedInteraction(secrets: [Installation.passcode])
        let vault = try await context(fingers, interaction: interaction).openNotes()
        vault.close()
        #expect(interaction.notices.contains { $0.contains("The passcode is needed first") })
        #expect(interaction.prompts.count == 1)
    }

    /// `verify` as in user mode: with no key held by the service, the passcode first, then the touch.
    @Test func verifyWithNoKeyInTheServiceAsksThePasscodeThenScans() async throws {
        try await install.setUp(fingers: [])
        let fingers = FakeSystemFingers(
            key: try install.masterKey(), touches: [.fail(.passcodeRequired(lockout: false)), .match(.leftThumb)])
        let interaction = ScriptedInteraction(secrets: [Installation.passcode])
        let verified = try await TouchVerification(context(fingers, interaction: interaction).environment).verifyTouch(finger: nil)
        #expect(verified.finger == .leftThumb)
        #expect(interaction.prompts.count == 1 && interaction.prompts[0].contains("read the enrolled fingers"))
    }

    @Test func verifyWithNoKeyInTheServiceAndNoTerminalNeedsThePasscode() async throws {
        try await install.setUp(fingers: [])
        let fingers = FakeSystemFingers(key: try install.masterKey(), touches: [.fail(.passcodeRequired(lockout: false))])
        let interaction = ScriptedInteraction(secrets: [], canAskPasscode: false)
        let error = await #expect(throws: AuthError.self) {
            _ = try await TouchVerification(context(fingers, interaction: interaction).environment).verifyTouch(finger: nil)
        }
        #expect(error?.code == .passcodeRequired)
        #expect(error?.message.hasPrefix("The passcode is needed first") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("--passcode-stdin") == true)
        #expect(interaction.prompts.isEmpty)
    }

    @Test func theLastFailedTouchSaysTheKeyIsForgotten() async throws {
        try await install.setUp(fingers: [])
        let fingers = FakeSystemFingers(
            key: try install.masterKey(), touches: [.fail(.noMatch(failedTouches: 5, touchesLeft: 0))])
        do {
            _ = try await TouchVerification(context(fingers, interaction: ScriptedInteraction(secrets: [], canAskPasscode: false)).environment)
                .verifyTouch(finger: nil)
            Issue.record("a no-match verified")
        } catch let error as AuthError {
            #expect(error.code == .authenticationFailed)
            #expect(error.message.contains("the key is forgotten"))
        }
    }

    @Test func serviceErrorsBecomeTheUsualAuthErrors() {
        let cases: [(SystemServiceError.Code, AuthError.Code)] = [
            (.passcodeRequired(lockout: true), .biometryLockout),
            (.passcodeRequired(lockout: false), .biometryNotAvailable),
            (.noFingerEnrolled(reader: "simulated:0"), .biometryNotEnrolled),
            (.fingerNotEnrolled(.leftThumb), .notFound),
            (.timedOut, .timeout),
            (.reader(FingerprintError(.busy, "busy")), .biometryNotAvailable),
            (.unreachable("gone"), .serviceUnavailable),
            (.failure("refused"), .serviceUnavailable),
            (.notRegistered, .serviceUnavailable),
            (.wrongPasscode(failedPasscodes: 1, delaySeconds: 0), .authenticationFailed),
            (.passcodeDelayed(secondsLeft: 30, failedPasscodes: 5), .passcodeDelay),
        ]
        for (code, expected) in cases {
            #expect(AuthError.from(systemService: SystemServiceError(code)).code == expected, "\(code)")
        }
    }

    @Test func lockAsksTheServiceToForgetTheKeyOfEveryVaultAndEmptiesTheKeyringToo() async throws {
        try await install.setUp(fingers: [])
        let fingers = FakeSystemFingers(key: try install.masterKey(), touches: [])
        // A user-mode vault's key of another data directory, in the user's keyring.
        try install.cache.store(SymmetricKey(size: .bits256), name: UUID().uuidString, lifetime: .seconds(600))
        _ = try install.cache.invalidate(name: try install.passcodes.open(with: .passcode(Installation.passcode)).storeID.uuidString)
        #expect(try Locking(context(fingers, interaction: ScriptedInteraction(secrets: [])).environment).lock().forgotten == 2)
        #expect(fingers.calls.withLock { $0 } == ["lock all"])
        #expect(try install.cache.invalidateAll() == 0)
    }

    @Test func lockInUserModeAlsoAsksAServiceThatIsThereAndIgnoresOneThatIsNot() async throws {
        try await install.setUp(fingers: [])
        _ = try install.cache.invalidateAll()
        let user = AuthEnvironment(
            .init(
                passcodes: install.passcodes, readerLookup: .found(nil), keyCache: install.cache, reuseMarkers: install.markers,
                attempts: install.attempts,
                interaction: ScriptedInteraction(secrets: []), remoteSession: { nil }, now: install.clock.now,
                systemService: FakeSystemFingers(key: try install.masterKey(), touches: [])))
        // The service held the key of a system-mode vault of the user's, elsewhere.
        #expect(try Locking(user).lock().forgotten == 1)
        let noService = AuthEnvironment(
            .init(
                passcodes: install.passcodes, readerLookup: .found(nil), keyCache: install.cache, reuseMarkers: install.markers,
                attempts: install.attempts,
                interaction: ScriptedInteraction(secrets: []), remoteSession: { nil }, now: install.clock.now,
                systemService: NoSystemService()))
        #expect(try Locking(noService).lock().forgotten == 0)
    }
}
