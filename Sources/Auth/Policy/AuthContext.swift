import Crypto
public import Fingerprint
public import Foundation
public import Vault

/// Decides who may open the vault and hands it its key — LocalAuthentication's `LAContext` for
/// fingerlock. Every collaborator is injected; the CLI assembles the real ones.
public final class AuthContext: Sendable {
    public struct Dependencies: Sendable {
        public var dataDirectory: String
        /// The reader in effect (nil when none is connected, with the problem when enumerating failed:
        /// no permission, busy…), possibly still being found.
        public var readerLookup: ReaderLookup
        public var keyCache: any KeyCache
        public var attempts: any AttemptStore
        public var interaction: any AuthInteraction
        public var environment: [String: String]
        public var now: @Sendable () -> Date
        public var vaultConfiguration: VaultConfiguration
        /// The passcode KDF cost for new slots: `.calibrated` outside tests.
        public var kdfCost: KDFCost
        /// Whether the reader chosen (even if absent right now) is a test reader; fixes the kind of
        /// a vault created now. Nil: judged from `reader`.
        public var testReaderChosen: Bool?

        public init(
            dataDirectory: String, reader: (any FingerprintReader)?, readerProblem: FingerprintError? = nil,
            keyCache: any KeyCache, attempts: any AttemptStore, interaction: any AuthInteraction,
            environment: [String: String], now: @escaping @Sendable () -> Date,
            vaultConfiguration: VaultConfiguration = .init(), kdfCost: KDFCost = .calibrated
        ) {
            self.init(
                dataDirectory: dataDirectory, readerLookup: .found(reader, problem: readerProblem), keyCache: keyCache,
                attempts: attempts, interaction: interaction, environment: environment, now: now,
                vaultConfiguration: vaultConfiguration, kdfCost: kdfCost)
        }

        public init(
            dataDirectory: String, readerLookup: ReaderLookup, keyCache: any KeyCache, attempts: any AttemptStore,
            interaction: any AuthInteraction, environment: [String: String], now: @escaping @Sendable () -> Date,
            vaultConfiguration: VaultConfiguration = .init(), kdfCost: KDFCost = .calibrated
        ) {
            self.dataDirectory = dataDirectory
            self.readerLookup = readerLookup
            self.keyCache = keyCache
            self.attempts = attempts
            self.interaction = interaction
            self.environment = environment
            self.now = now
            self.vaultConfiguration = vaultConfiguration
            self.kdfCost = kdfCost
        }
    }

    /// Consecutive failed touches, across invocations, that lock biometrics until a passcode unlock.
    public static let lockoutThreshold = 5
    /// Wrong passcodes accepted in one evaluation at a terminal before giving up.
    public static let passcodePromptsPerEvaluation = 3
    /// Retry hints tolerated in one evaluation (they do not count as tries).
    static let maximumRetryHints = 10

    let dependencies: Dependencies
    /// The passcode's home: the vault's key slots.
    let passcodes: any PasscodeRepository
    var interaction: any AuthInteraction { dependencies.interaction }

    public init(_ dependencies: Dependencies) {
        self.dependencies = dependencies
        passcodes = VaultPasscodeRepository(
            dataDirectory: dependencies.dataDirectory, configuration: dependencies.vaultConfiguration,
            cost: dependencies.kdfCost)
    }

    // MARK: - Availability

    /// Nil when `policy` can run now; otherwise why not (as `LAContext.canEvaluatePolicy`).
    /// Checks what can be known without unlocking: a vault, remote session, reader, keyring, a
    /// cached key, lockout.
    public func canEvaluate(_ policy: AuthPolicy) async -> AuthError? {
        guard passcodes.hasPasscode else { return passcodeNotSet }
        do {
            try await biometricPreconditions()
            let storeID = try passcodes.storeID()
            guard try dependencies.keyCache.load(name: storeID.uuidString) != nil else { throw noCachedKey }
            if try dependencies.attempts.read().failedTouches >= Self.lockoutThreshold { throw lockout }
            return nil
        } catch {
            let authError = Self.authError(error)
            if policy == .biometricsOrPasscode && interaction.canAskPasscode { return nil }
            if policy == .biometricsOrPasscode { return AuthError(.passcodeRequired, authError.message + " " + Self.noTerminal) }
            return authError
        }
    }

    // MARK: - Evaluation

    /// Runs `policy` and returns the unlocked vault. `reason` is shown at the passcode prompt.
    public func evaluate(_ policy: AuthPolicy, reason: String) async throws -> Vault {
        guard passcodes.hasPasscode else { throw passcodeNotSet }
        if policy == .biometricsOrPasscode && interaction.passcodeFromScript {
            return try await unlockWithPasscode(reason: reason)
        }
        do {
            return try await unlockWithFinger()
        } catch let error as AuthError where policy == .biometricsOrPasscode && Self.fallsBack(error.code) {
            // Without a way to ask, a finger that did not match is a plain failure (exit 1); only
            // where the passcode is needed does the caller learn that it is (exit 8).
            if !interaction.canAskPasscode && [.authenticationFailed, .timeout].contains(error.code) { throw error }
            var typedAhead = ""
            if case .userFallbackTyped(let typed) = error.detail { typedAhead = typed }
            if error.code != .userFallback && interaction.canAskPasscode { interaction.notify(error.message) }
            return try await unlockWithPasscode(reason: reason, typedAhead: typedAhead, why: error)
        }
    }

    /// Always asks for the passcode (enrolling or forgetting a finger, rekey, `unlock`), then caches
    /// the key for fingerprint unlocks.
    public func unlockWithPasscode(reason: String, typedAhead: String = "", why: AuthError? = nil) async throws -> Vault {
        guard passcodes.hasPasscode else { throw passcodeNotSet }
        guard interaction.canAskPasscode else {
            let because = why.map { $0.message + " " } ?? ""
            throw AuthError(.passcodeRequired, because + "The passcode is required. " + Self.noTerminal)
        }
        let (vault, _) = try await promptForPasscode(reason: reason, typedAhead: typedAhead)
        try cacheKey(of: vault)
        return vault
    }

    /// Asks until the passcode opens the vault (three tries at a terminal, one from a script).
    private func promptForPasscode(reason: String, typedAhead: String) async throws -> (Vault, String) {
        let prompts = interaction.passcodeFromScript ? 1 : Self.passcodePromptsPerEvaluation
        var typed = typedAhead
        for attempt in 1...prompts {
            try refuseDuringPasscodeDelay()
            let passcode = try await interaction.askSecret(prompt: "Passcode (\(reason)): ", typedAhead: typed)
            typed = ""
            if let vault = try openCountingFailure(.passcode(passcode)) { return (vault, passcode) }
            if attempt < prompts { interaction.notify("Wrong passcode, try again.") }
        }
        throw AuthError(.authenticationFailed, "Wrong passcode.")
    }

    /// `rekey`: asks the passcode, rotates the store master key (every note and template re-sealed,
    /// slots rewrapped, a new recovery key), and caches the new key in place of the old.
    public func rekey() async throws -> RecoveryKey {
        guard passcodes.hasPasscode else { throw passcodeNotSet }
        guard interaction.canAskPasscode else {
            throw AuthError(.passcodeRequired, "The passcode is required. " + Self.noTerminal)
        }
        let (vault, passcode) = try await promptForPasscode(reason: "rotate the vault key", typedAhead: "")
        defer { vault.close() }
        let recoveryKey: RecoveryKey
        do {
            recoveryKey = try vault.rekey(passcode: passcode, cost: dependencies.kdfCost)
        } catch {
            throw Self.authError(error)
        }
        _ = try? lock()
        try cacheKey(of: vault)
        return recoveryKey
    }

    /// Asks for a secret that is not the vault's current passcode (a backup's passcode).
    public func askSecret(_ prompt: String) async throws -> String {
        guard interaction.canAskPasscode else {
            throw AuthError(.passcodeRequired, "A passcode is required. " + Self.noTerminal)
        }
        return try await interaction.askSecret(prompt: prompt, typedAhead: "")
    }

    /// Opens with the recovery key (for `passcode reset`), counted like a passcode attempt.
    func openWithRecoveryKey(_ text: String) throws -> Vault? {
        try openWithRecoveryKeyOrPasscode(.recoveryKey(text))
    }

    func openWithRecoveryKeyOrPasscode(_ credential: VaultCredential) throws -> Vault? {
        try refuseDuringPasscodeDelay()
        return try openCountingFailure(credential)
    }

    /// One touch against the sealed templates (`fingerlock verify`): the vault key comes from the
    /// cache, else from the passcode. Returns the finger that matched; a no-match counts towards
    /// lockout and throws `.authenticationFailed`.
    public func verifyTouch(finger: Finger?) async throws -> (print: EnrolledPrint, reader: any FingerprintReader, identified: Bool) {
        guard passcodes.hasPasscode else { throw passcodeNotSet }
        if let remote = RemoteSession.reason(environment: dependencies.environment) {
            throw AuthError(.biometryNotAvailable, remote, unavailability: .remoteSession)
        }
        // The cached key opens the vault while the reader may still be being found; the passcode is
        // asked for only once the reader is known to be there. So a vault that cannot be opened is
        // reported before a missing reader, and a missing reader before any passcode prompt.
        let cached = try cachedVault()
        let reader: any FingerprintReader
        do {
            reader = try await requireReader()
        } catch {
            cached.vault?.close()
            throw error
        }
        let vault = try await vault(cached, orPasscodeFor: "read the enrolled fingers")
        defer { vault.close() }
        try checkReaderKind(reader, vault: vault)
        if try dependencies.attempts.read().failedTouches >= Self.lockoutThreshold { throw lockout }
        var prints = try VaultPrintStore(vault: vault).prints(for: reader.identity)
        guard !prints.isEmpty else { throw notEnrolled(reader) }
        if let finger {
            prints = prints.filter { $0.finger == finger }
            guard !prints.isEmpty else {
                throw AuthError(.notFound, "\(finger) is not enrolled on \(reader.identity); `fingerlock fingers` lists the enrolled ones.")
            }
        }
        let identified = prints.count == 1 || reader.info.canIdentify
        if !identified {
            interaction.notify("This reader cannot identify among fingers; checking \(prints[0].finger).")
            prints = [prints[0]]
        }
        let settings = try Self.vaultCall { try SecuritySettings(vault: vault) }
        let matched = try await touches(prints, reader: reader, tries: 1, timeout: settings.scanTimeout, offerPasscode: false)
        return (matched, reader, identified)
    }

    /// Forgets the cached key: the passcode is needed again (`fingerlock lock`).
    @discardableResult
    public func lock() throws -> Bool {
        guard passcodes.hasPasscode else { return false }
        let storeID = try passcodes.storeID().uuidString
        let cache = dependencies.keyCache
        guard cache.unavailableReason() == nil else { return false }
        let removed = try cache.invalidate(name: storeID)
        _ = try cache.invalidate(name: storeID + ":reuse")
        return removed
    }

    // MARK: - Fingerprint unlock

    private func unlockWithFinger() async throws -> Vault {
        let reader = try await requireReader()
        let vault = try await vaultFromCache()
        do {
            try checkReaderKind(reader, vault: vault)
            if try dependencies.attempts.read().failedTouches >= Self.lockoutThreshold { throw lockout }
            let settings = try Self.vaultCall { try SecuritySettings(vault: vault) }
            let storeID = try vault.storeID.uuidString
            if settings.reuseWindow > .zero, try dependencies.keyCache.load(name: storeID + ":reuse") != nil {
                return vault
            }
            let prints = try VaultPrintStore(vault: vault).prints(for: reader.identity)
            guard !prints.isEmpty else { throw notEnrolled(reader) }
            _ = try await touches(prints, reader: reader, tries: settings.maxTries, timeout: settings.scanTimeout)
            if settings.reuseWindow > .zero {
                try? dependencies.keyCache.store(.init(size: .bits256), name: storeID + ":reuse", lifetime: settings.reuseWindow)
            }
            return vault
        } catch {
            vault.close()
            throw error
        }
    }

    /// Up to `tries` touches. Each is counted as a failure before it is evaluated (so a crash or a
    /// parallel run cannot skip one) and uncounted when it turns out not to be a no-match.
    private func touches(
        _ prints: [EnrolledPrint], reader: any FingerprintReader, tries: Int, timeout: Duration, offerPasscode: Bool = true
    ) async throws -> EnrolledPrint {
        var noMatches = 0
        var hints = 0
        let verb = reader.info.scanType == .swipe ? "Swipe your finger on" : "Touch"
        while noMatches < tries {
            let failures = try dependencies.attempts.update { state -> Int in
                state.failedTouches += 1
                return state.failedTouches
            }
            guard failures <= Self.lockoutThreshold else {
                try uncountTouch()
                throw lockout
            }
            let outcome: ScanOutcome
            do {
                let prompt = "\(verb) the fingerprint reader" + (offerPasscode ? " (or press Enter to type your passcode)" : "")
                outcome = try await interaction.scan(prompt: prompt) {
                    try await reader.match(prints, timeout: timeout)
                }
            } catch {
                try uncountTouch()
                throw Self.authError(error)
            }
            switch outcome {
            case .scanned(.match(let print)):
                try dependencies.attempts.update { $0.failedTouches = 0 }
                return print
            case .scanned(.noMatch):
                noMatches += 1
                if failures >= Self.lockoutThreshold {
                    // Still a no-match (exit 1 where nothing can ask for the passcode), and now a lockout.
                    throw AuthError(
                        .authenticationFailed,
                        "No match. That was the \(Self.lockoutThreshold)th failed touch in a row: fingerprint unlock is off until the passcode is entered.")
                }
                if noMatches < tries { interaction.notify("No match. Try again.") }
            case .scanned(.retry(let reason)):
                try uncountTouch()
                hints += 1
                guard hints <= Self.maximumRetryHints else {
                    throw AuthError(.authenticationFailed, "The reader could not read the finger: \(reason.hint)")
                }
                interaction.notify(reason.hint)
            case .passcodeRequested(let typed):
                try uncountTouch()
                throw AuthError(.userFallback, "The passcode was chosen.", detail: .userFallbackTyped(typed))
            }
        }
        throw AuthError(
            .authenticationFailed, tries == 1 ? "No match." : "No match after \(tries) tries.")
    }

    private func uncountTouch() throws {
        try dependencies.attempts.update { $0.failedTouches = max(0, $0.failedTouches - 1) }
    }

    /// The vault for reading the enrolled set or settings: with the cached key, else the passcode.
    /// No touch is asked for — the cache is readable by the user's own processes anyway.
    public func openWithCachedKeyOrPasscode(reason: String) async throws -> Vault {
        try await vault(try cachedVault(), orPasscodeFor: reason)
    }

    /// The vault opened with the cached key, or nil with why there is none (no key cached, no
    /// keyring) — the cases the passcode stands in for; other failures throw.
    private func cachedVault() throws -> (vault: Vault?, miss: AuthError?) {
        do {
            return (try openWithCachedKey(), nil)
        } catch let error as AuthError where error.unavailability == .noCachedKey || error.unavailability == .noKeyring {
            return (nil, error)
        }
    }

    /// The vault `cachedVault()` opened, else the one the passcode opens.
    private func vault(_ cached: (vault: Vault?, miss: AuthError?), orPasscodeFor reason: String) async throws -> Vault {
        if let vault = cached.vault { return vault }
        return try await unlockWithPasscode(reason: reason, why: cached.miss)
    }

    private func biometricPreconditions() async throws {
        if let remote = RemoteSession.reason(environment: dependencies.environment) {
            throw AuthError(.biometryNotAvailable, remote, unavailability: .remoteSession)
        }
        _ = try await requireReader()
        if let reason = dependencies.keyCache.unavailableReason() {
            throw AuthError(.biometryNotAvailable, reason, unavailability: .noKeyring)
        }
    }

    private func requireReader() async throws -> any FingerprintReader {
        let (reader, problem) = await dependencies.readerLookup.outcome()
        // libfprint's enumeration cannot be interrupted; a Ctrl-C during it takes effect here.
        try Task.checkCancellation()
        if let reader { return reader }
        if let problem { throw Self.authError(problem) }
        throw AuthError(.biometryNotAvailable, "No fingerprint reader is connected.", unavailability: .noReader)
    }

    /// The vault opened with the cached key, once a touch could be asked for at all.
    private func vaultFromCache() async throws -> Vault {
        try await biometricPreconditions()
        return try openWithCachedKey()
    }

    /// The vault opened with the cached key, without the session checks of `vaultFromCache()`.
    private func openWithCachedKey() throws -> Vault {
        let cache = dependencies.keyCache
        if let reason = cache.unavailableReason() {
            throw AuthError(.biometryNotAvailable, reason, unavailability: .noKeyring)
        }
        // One database open: the store id that names the cache entry is read in the same pass that
        // reads the key check and the slots.
        var storeID: UUID?
        let opened: Vault?
        do {
            opened = try passcodes.open(masterKeyFor: { id in
                storeID = id
                return try cache.load(name: id.uuidString)
            })
        } catch let error as VaultError where error.code == .wrongKey {
            // A planted or stale key: never use it, and remove it so it cannot be tried again.
            if let storeID { _ = try? cache.invalidate(name: storeID.uuidString) }
            throw AuthError(
                .biometryNotAvailable, "The cached key does not open this vault; it was removed, so the passcode is needed.",
                unavailability: .noCachedKey)
        } catch let error as KeyCacheError {
            throw error
        } catch {
            throw Self.authError(error)
        }
        guard let vault = opened else { throw noCachedKey }
        return vault
    }

    /// Refuses a test reader on a hardware vault and a hardware reader on a test vault.
    public func checkReaderKind(_ reader: any FingerprintReader, vault: Vault) throws {
        let kind = try vault.kind
        let isTest = reader.identity.isTestReader
        if kind == .hardware && isTest {
            throw AuthError(
                .biometryNotAvailable,
                "This vault was set up with real hardware; it does not accept the test reader \(reader.identity).",
                unavailability: .wrongReaderKind)
        }
        if kind == .test && !isTest {
            throw AuthError(
                .biometryNotAvailable,
                "This is a test vault (set up with a simulated or virtual reader); it does not accept \(reader.identity).",
                unavailability: .wrongReaderKind)
        }
    }

    // MARK: - Passcode

    /// Refuses at once while a delay runs (so nobody is asked for a passcode that would be refused).
    private func refuseDuringPasscodeDelay() throws {
        try Self.checkDelay(try dependencies.attempts.read(), now: dependencies.now())
    }

    private static func checkDelay(_ state: AttemptState, now: Date) throws {
        if let left = PasscodeDelays.remaining(in: state, now: now) {
            throw AuthError(
                .passcodeDelay,
                "Too many wrong passcodes (\(state.failedPasscodes)): try again in \(PasscodeDelays.describe(left)).")
        }
    }

    /// Checks the delay and counts the attempt in one step under the counters' lock — so parallel
    /// runs waiting at their prompts cannot all slip past one check — then opens; a success clears
    /// every counter (and lockout). An empty passcode is not an attempt.
    private func openCountingFailure(_ credential: VaultCredential) throws -> Vault? {
        if case .passcode(let text) = credential, text.isEmpty { return nil }
        let now = dependencies.now()
        try dependencies.attempts.update {
            try Self.checkDelay($0, now: now)
            $0.failedPasscodes += 1
            $0.lastPasscodeFailure = now
        }
        do {
            let vault = try passcodes.open(with: credential)
            try dependencies.attempts.update { $0 = AttemptState() }
            return vault
        } catch let error as VaultError where [.wrongPasscode, .wrongRecoveryKey, .invalidInput].contains(error.code) {
            // A malformed recovery key is just a wrong one, and counts as such.
            return nil
        } catch {
            throw Self.authError(error)
        }
    }

    /// Caches the key after a passcode or recovery-key unlock (or a restore); without a keyring,
    /// says why once.
    public func cacheKey(of vault: Vault) throws {
        let cache = dependencies.keyCache
        if let reason = cache.unavailableReason() {
            interaction.notify(reason)
            return
        }
        let settings = try Self.vaultCall { try SecuritySettings(vault: vault) }
        do {
            try cache.store(try vault.exportMasterKey(), name: try vault.storeID.uuidString, lifetime: settings.cacheExpiry)
        } catch let error as KeyCacheError {
            interaction.notify(error.message + " The fingerprint will not unlock until the next passcode.")
        }
    }

    // MARK: - Errors

    private var passcodeNotSet: AuthError {
        AuthError(.passcodeNotSet, "No passcode is set yet: run `fingerlock passcode set` to create the vault.")
    }
    private var noCachedKey: AuthError {
        AuthError(
            .biometryNotAvailable,
            "The passcode is needed first (after a reboot, `fingerlock lock`, or when the cached key expires).",
            unavailability: .noCachedKey)
    }
    private var lockout: AuthError {
        AuthError(.biometryLockout, "Too many failed touches: fingerprint unlock is off until the passcode is entered.")
    }
    private func notEnrolled(_ reader: any FingerprintReader) -> AuthError {
        AuthError(.biometryNotEnrolled, "No finger is enrolled on \(reader.identity); run `fingerlock enroll`.")
    }
    static let noTerminal = "There is no terminal to ask for it: use --passcode-stdin or --passcode-fd N."

    static func fallsBack(_ code: AuthError.Code) -> Bool {
        switch code {
        case .authenticationFailed, .userFallback, .timeout, .biometryNotAvailable, .biometryNotEnrolled, .biometryLockout:
            true
        default:
            false
        }
    }

    /// Maps the layers below onto `AuthError`.
    static func authError(_ error: any Error) -> AuthError {
        switch error {
        case let error as AuthError:
            return error
        case is CancellationError:
            return AuthError(.userCancel, "Cancelled.")
        case let error as FingerprintError:
            switch error.code {
            case .timedOut: return AuthError(.timeout, error.message)
            case .userFallback: return AuthError(.userFallback, error.message, detail: .userFallbackTyped(""))
            case .noReader: return AuthError(.biometryNotAvailable, error.message, unavailability: .noReader)
            case .permissionDenied: return AuthError(.biometryNotAvailable, error.message, unavailability: .noPermission)
            case .busy: return AuthError(.biometryNotAvailable, error.message, unavailability: .busy)
            case .unplugged: return AuthError(.biometryNotAvailable, error.message, unavailability: .unplugged)
            default: return AuthError(.biometryNotAvailable, error.message, unavailability: .deviceError)
            }
        case let error as VaultError:
            switch error.code {
            case .notFound: return AuthError(.passcodeNotSet, error.message)
            default: return AuthError(.dataError, error.message, vaultError: error)
            }
        case let error as KeyCacheError:
            return AuthError(.biometryNotAvailable, error.message, unavailability: .noKeyring)
        default:
            return AuthError(.dataError, String(describing: error))
        }
    }

    static func vaultCall<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch { throw authError(error) }
    }
}
