/// The Varlink interface `io.fingerlock.Service`: its name, its methods and errors, its version,
/// and its description as shipped (the same text is in `varlink/io.fingerlock.Service.varlink`;
/// a test keeps the two equal). Clients and the service take every name from here.
public enum ServiceInterface {
    public static let name = "io.fingerlock.Service"
    /// Bumped on any incompatible change; reported by `org.varlink.service.GetInfo`.
    public static let protocolVersion = 1
    /// Where the CLI finds the service unless told otherwise (`--socket`, `FINGERLOCK_SOCKET`).
    public static let defaultSocketPath = "/run/fingerlock/socket"
    /// The hard limit on one message, NUL excluded; a longer one is refused and the connection closed.
    public static let maximumMessageSize = 64 * 1024
    /// The longest a cached key may live, as in user mode (48 h).
    public static let maximumCacheSeconds = 48 * 3600
    /// The longest one scan (each touch of an enrollment) may wait for a finger.
    public static let maximumScanSeconds = 300
    /// The largest template ImportFinger takes (and so ExportFinger returns): a libfprint template
    /// is a few KiB, an image-based one some tens; in base64 with the rest it fits one message.
    public static let maximumTemplateSize = 40 * 1024
    /// The highest count SetVaultPolicy takes for a counter kept elsewhere.
    public static let maximumCarriedCount = 1000
    /// The wire values of PasscodeRequired's `reason`.
    public enum PasscodeRequiredReason: String, Sendable {
        /// No key held (after a restart, Lock or expiry).
        case locked
        /// The key was forgotten after too many failed touches in a row (AuthCore's `TouchLedger`);
        /// until the passcode is entered.
        case lockout
        /// The vault takes the caller's fingers from fprintd, and fprintd's set is no longer the one
        /// the vault accepted (a finger added or removed in the desktop's settings): the passcode
        /// accepts the new set (UnlockWithPasscode).
        case fingersChanged
    }

    public enum Method: String, Sendable, CaseIterable {
        case registerVault = "RegisterVault"
        case sealPasscodeSlot = "SealPasscodeSlot"
        case unlockWithPasscode = "UnlockWithPasscode"
        case lock = "Lock"
        case status = "Status"
        case forgetVault = "ForgetVault"
        case unlockWithTouch = "UnlockWithTouch"
        case releaseWithinReuseWindow = "ReleaseWithinReuseWindow"
        case enrollFinger = "EnrollFinger"
        case listFingers = "ListFingers"
        case forgetFinger = "ForgetFinger"
        case setVaultPolicy = "SetVaultPolicy"
        case importFinger = "ImportFinger"
        case exportFinger = "ExportFinger"
        case useFprintdFingers = "UseFprintdFingers"

        public var qualifiedName: String { ServiceInterface.name + "." + rawValue }

        public init?(qualifiedName: String) {
            let prefix = ServiceInterface.name + "."
            guard qualifiedName.hasPrefix(prefix) else { return nil }
            self.init(rawValue: String(qualifiedName.dropFirst(prefix.count)))
        }

        /// Whether a call carries a passcode-derived value (`stretched`), a vault key or a slot
        /// proof: clients send it only after GetInfo said fingerlockd answers (see `ServiceClient`).
        public var carriesSecrets: Bool {
            switch self {
            case .sealPasscodeSlot, .unlockWithPasscode, .forgetVault, .setVaultPolicy, .enrollFinger, .forgetFinger,
                .importFinger, .exportFinger, .useFprintdFingers:
                true
            case .registerVault, .lock, .status, .unlockWithTouch, .releaseWithinReuseWindow, .listFingers:
                false
            }
        }
    }

    public enum ErrorName: String, Sendable, CaseIterable {
        case vaultNotRegistered = "VaultNotRegistered"
        case wrongPasscode = "WrongPasscode"
        case passcodeDelayed = "PasscodeDelayed"
        case keyRequired = "KeyRequired"
        case tooManyVaults = "TooManyVaults"
        case tooManyConnections = "TooManyConnections"
        case messageTooLarge = "MessageTooLarge"
        case serviceFailure = "ServiceFailure"
        case passcodeRequired = "PasscodeRequired"
        case noFingerEnrolled = "NoFingerEnrolled"
        case fingerNotEnrolled = "FingerNotEnrolled"
        case noMatch = "NoMatch"
        case scanRetry = "ScanRetry"
        case scanTimedOut = "ScanTimedOut"
        case readerUnavailable = "ReaderUnavailable"
        case readerMismatch = "ReaderMismatch"
        case wrongReaderKind = "WrongReaderKind"
        case scanRequired = "ScanRequired"
        case tpmRefused = "TPMRefused"
        case notAtSeat = "NotAtSeat"

        public var qualifiedName: String { ServiceInterface.name + "." + rawValue }
    }

    /// The interface description in Varlink's IDL, returned by `GetInterfaceDescription`.
    public static let description = """
        # fingerlockd, the system-mode service of fingerlock (protocol version 1).
        #
        # The service keeps, for each (user, vault), a random 32-byte secret that is entangled into
        # the vault's passcode slot, the attempt counters, the fingerprint templates enrolled through
        # it, and the unlocked vault key (in its memory only); it owns the reader. The user is
        # always the peer's kernel credentials (SO_PEERCRED), never anything a message says: a vault
        # is only ever the caller's own, and another user's vault with the same id is invisible. A vault id is a UUID string. Binary values are base64.
        # One message is at most 65536 bytes before its NUL terminator.
        interface io.fingerlock.Service

        # What the service knows about one of the caller's vaults. It holds no secret.
        type VaultStatus (
          # The vault has a secret here (RegisterVault was called).
          registered: bool,
          # The vault's key is cached in the service's memory.
          unlocked: bool,
          # Seconds until the cached key is forgotten (0 when locked).
          unlockedSeconds: int,
          # Consecutive wrong passcodes since the last correct one.
          failedPasscodes: int,
          # Seconds before the next passcode attempt is allowed (0: now).
          delaySeconds: int,
          # Failed touches in a row since the last match or correct passcode.
          failedTouches: int,
          # The failed touches reached the lockout: the key was forgotten and a touch
          # unlocks nothing until the passcode is entered.
          touchLockedOut: bool,
          # The policy the vault's owner set (SetVaultPolicy); null before, when the defaults apply.
          policy: ?VaultPolicy,
          # Seconds left of the reuse window: a touch unlock now releases the key without a scan
          # (null: the vault has no reuse window).
          reuseSeconds: ?int
        )

        # The vault's own settings, sealed in the vault (the service cannot read them), as its owner
        # last told the service. Before that, the defaults apply: 28800, 0, 3, 30 and no kind check.
        type VaultPolicy (
          # How long a passcode unlock keeps the key here (60 to 172800).
          cacheExpirySeconds: int,
          # After an unlock, a touch unlock within this many seconds needs no scan (0 to 300).
          reuseWindowSeconds: int,
          # Touches a client offers per unlock before asking for the passcode (1 to 10).
          maxTries: int,
          # How long one touch scan waits for a finger (5 to 120); it replaces a call's timeoutSeconds.
          scanTimeoutSeconds: int,
          # "test" (simulated and virtual_* readers only) or "hardware" (real readers only).
          kind: string
        )

        # Creates the vault's secret if it has none yet. Calling it again changes nothing.
        method RegisterVault(vault: string) -> (created: bool)

        # Seals `key` (the store master key, 32 bytes) under
        # KEK = HKDF-SHA256(ikm: stretched || secret, info: "fingerlock system-mode passcode slot v1" || vault),
        # the vault id in lower case,
        # with AES-GCM, authenticating `associatedData`. `stretched` is the client's scrypt output
        # for the passcode (32 bytes). Returns the sealed slot (nonce || ciphertext || tag).
        # Once a slot was sealed for the vault, sealing another needs the vault's key: `key` itself, or
        # `currentKey` when `key` is a new one (rekey); otherwise KeyRequired. The client puts the sealed
        # slot in its vault afterwards, in a transaction that may fail: so the slot and key in use before
        # the last seal still prove and seal until the slot sealed last is seen in use (proven in a method
        # that takes a proof, as clients do right after their transaction commits; after a rekey, also its
        # new key shown in SetVaultPolicy). From then on only the slot sealed last counts as a proof in the
        # methods that take one (a copy of an older slot is a wrong passcode), and only its key seals.
        # With `tpm`, the slot is bound to the service's TPM: half of `stretched` authorizes a random
        # secret the TPM seals (each wrong passcode is a failure the TPM counts), the other half is mixed
        # with that secret; a copy of the vault and of the service's state opens nothing without this TPM.
        method SealPasscodeSlot(vault: string, stretched: string, key: string, associatedData: string, currentKey: ?string, tpm: ?TPMBinding) -> (sealedSlot: string)

        type TPMBinding (pcr7: bool)

        # Counts the attempt durably before anything else (refused at once while a delay runs),
        # then opens the sealed slot. On success the counters are cleared, the key is kept in the
        # service's memory for the vault's cacheExpirySeconds (28800 before SetVaultPolicy), or for
        # `cacheSeconds` when that is shorter (0 to 172800; 0 keeps nothing), and returned;
        # `cachedSeconds` says how long it is kept. It starts the reuse window.
        # For a vault that takes its fingers from fprintd (UseFprintdFingers), the proven passcode also
        # accepts fprintd's set of the caller's fingers as it is now; `fprintdChange` says what changed
        # (absent when nothing did, or when fprintd could not be asked: the unlock stands).
        method UnlockWithPasscode(vault: string, stretched: string, sealedSlot: string, associatedData: string, cacheSeconds: int) -> (key: string, cachedSeconds: int, fprintdChange: ?string)

        # Forgets the vault's cached key; without `vault`, the key of every vault of the caller's
        # (`fingerlock lock`). `wasUnlocked`: a key was held.
        method Lock(vault: ?string) -> (wasUnlocked: bool)

        # Tells the service the vault's policy, which only the open vault knows. Only the vault's owner
        # can, and only with the vault's key (`key`, checked against the key of the slot sealed last,
        # never the one before a rekey; otherwise KeyRequired). Every value is checked against its bounds
        # (InvalidParameter). A cached key is shortened to the new cacheExpirySeconds (never
        # lengthened). `failedTouches` and `failedPasscodes` (0 to 1000) raise the service's counters
        # to at least these counts (kept elsewhere, in user mode), never lower them; a raised passcode
        # count restarts its delay. Returns the seconds the cached key has left (0: none).
        method SetVaultPolicy(vault: string, key: string, policy: VaultPolicy, failedTouches: ?int, failedPasscodes: ?int) -> (cachedSeconds: int)

        # The vault's state, without any secret.
        method Status(vault: string) -> (status: VaultStatus)

        # Deletes the vault's secret, counters and cached key, after the same proof (and the same
        # counting) as UnlockWithPasscode. The sealed slot can never be opened afterwards.
        method ForgetVault(vault: string, stretched: string, sealedSlot: string, associatedData: string) -> ()

        # One finger enrolled for a vault through the service.
        type EnrolledFinger (
          # fprintd's name of the finger: right-index-finger, left-thumb, ...
          finger: string,
          # The reader it was enrolled on, DRIVER:DEVICE-ID.
          reader: string,
          # When, in seconds since 1970-01-01 UTC; 0 when not known (fprintd's fingers).
          enrolled: int
        )

        # One step of an enrollment: `event` is "opened" (the reader waits for the first of `total`
        # touches), "stage" (`completed` of `total` done), "retry" (the touch did not count;
        # `retry` is short, center, remove or general) or "waiting" (another user's request holds the
        # reader, `busyWith` "enrollment" or "scan": a touch now goes to it, not to this enrollment,
        # which waits its turn).
        type EnrollStage (
          event: string,
          completed: int,
          total: int,
          retry: string,
          busyWith: ?string
        )

        # One touch on the service's reader, matched against this vault's templates kept by the
        # service (`finger`: only that one); for a vault that takes fprintd's fingers
        # (UseFprintdFingers), a verify by fprintd of the caller's fingers, `reader` "fprintd:NAME",
        # refused with PasscodeRequired "fingersChanged" before any scan while fprintd's set is not the
        # one the vault accepted. Only a key the service already holds is released: with
        # none cached (after a restart, Lock, expiry or a lockout) it fails with PasscodeRequired
        # and scans nothing. The touch is counted before the scan; a match clears the count and
        # returns the cached key; after 5 failed touches in a row the service forgets the key.
        # `timeoutSeconds` (1 to 300) bounds the wait for the reader and for the finger; the vault's
        # scanTimeoutSeconds replaces it once SetVaultPolicy was called. A reader of the wrong kind
        # for the vault (see VaultPolicy) is refused with WrongReaderKind before anything is counted.
        # With `reuse` true, within the reuse window of the last passcode unlock or matching touch the
        # key is released without a scan (`reused` true, `finger` and `reader` empty). `policyKnown`
        # says whether SetVaultPolicy was called for the vault. Closing the connection cancels the scan.
        # Called with "more", while another user's request holds the reader as this one arrives, a reply
        # with `busyWith` ("enrollment" or "scan") and empty `key`, `finger` and `reader` continues: a
        # touch now would go to that request. The last reply is the touch's.
        method UnlockWithTouch(vault: string, finger: ?string, timeoutSeconds: int, reuse: ?bool) -> (key: string, finger: string, reader: string, reused: ?bool, policyKnown: ?bool, busyWith: ?string)

        # The key, within the vault's reuse window of the last passcode unlock or matching touch; never
        # scans. Outside it (or with no window) it fails with ScanRequired, which carries the vault's
        # touch settings, so a client shows a touch prompt only when a touch is needed; with no key held
        # or after a lockout, with PasscodeRequired.
        method ReleaseWithinReuseWindow(vault: string) -> (key: string)

        # Enrolls `finger` on the service's reader for this vault, after the same passcode proof
        # (and counting) as UnlockWithPasscode. Call it with "more": each step is a reply with
        # `stage` that continues; the last reply has `enrolled`. A finger already enrolled for the
        # vault is replaced. Closing the connection cancels it; nothing is kept then. The vault's
        # scanTimeoutSeconds and reader kind apply as in UnlockWithTouch.
        method EnrollFinger(vault: string, stretched: string, sealedSlot: string, associatedData: string, finger: string, timeoutSeconds: int) -> (stage: ?EnrollStage, enrolled: ?EnrolledFinger)

        # The fingers enrolled for the vault (no template leaves the service); for a vault that takes
        # fprintd's fingers, the set it accepted, on reader "fprintd:NAME".
        method ListFingers(vault: string) -> (fingers: []EnrolledFinger)

        # Forgets an enrolled finger (and its copy on the reader's own storage), after the same
        # proof (and counting) as UnlockWithPasscode.
        method ForgetFinger(vault: string, stretched: string, sealedSlot: string, associatedData: string, finger: string) -> ()

        # One finger with its template, as `system enable` and `system disable` move it.
        type FingerTemplate (
          finger: string,
          # DRIVER:DEVICE-ID of the reader that made the template.
          reader: string,
          # The template (base64), at most 40960 bytes.
          template: string,
          enrolled: int
        )

        # Keeps a template enrolled elsewhere (in user mode) for this vault, sealed as an enrolled
        # one, after the same proof (and counting) as UnlockWithPasscode. A template made by another
        # reader than the service's could never match there: it is refused with ReaderMismatch
        # (before the passcode is counted). A finger already enrolled for the vault is replaced.
        method ImportFinger(vault: string, stretched: string, sealedSlot: string, associatedData: string, print: FingerTemplate) -> (enrolled: EnrolledFinger)

        # Returns one of the vault's templates to its owner (`system disable` seals it back into the
        # vault), after the same proof (and counting) as UnlockWithPasscode.
        method ExportFinger(vault: string, stretched: string, sealedSlot: string, associatedData: string, finger: string) -> (print: FingerTemplate)

        # With `use`, the vault's fingers become the caller's fingers enrolled with fprintd as they are
        # now (`device`, `fingers`): UnlockWithTouch asks fprintd to verify them (as the caller, by
        # name), and unlocks only while fprintd's set is the accepted one (otherwise PasscodeRequired
        # "fingersChanged"). fprintd is asked first: with no finger enrolled there it fails with
        # NoFingerEnrolled (reader "fprintd:NAME"), and with fprintd unreachable or refusing with
        # ReaderUnavailable, before the passcode is counted. Without `use`, the vault's own templates
        # apply again; `fingers` is the set it had accepted (`used`: it took fprintd's). Both after the
        # same proof (and counting) as UnlockWithPasscode.
        method UseFprintdFingers(vault: string, stretched: string, sealedSlot: string, associatedData: string, use: bool) -> (used: bool, device: string, fingers: []string)

        # The caller has no vault with this id here.
        error VaultNotRegistered (vault: string)

        # The passcode (or the slot, or its associated data) did not match; counted.
        error WrongPasscode (failedPasscodes: int, delaySeconds: int)

        # Sealing a new slot needs the vault's current key (see SealPasscodeSlot).
        error KeyRequired ()

        # A passcode delay is still running: try again in `secondsLeft` seconds. Not counted.
        error PasscodeDelayed (secondsLeft: int, failedPasscodes: int)

        # The caller (with every uid counted as theirs: their subordinate uids) has `limit` vaults
        # registered, or the service has `limit` in all (or, for a caller with some, all but those kept
        # for callers with none).
        error TooManyVaults (limit: int)

        # The service or the caller has too many open connections; the connection is closed.
        error TooManyConnections (limit: int)

        # A message exceeded `limit` bytes; the connection is closed.
        error MessageTooLarge (limit: int)

        # The slot is bound to the TPM and the TPM did not release its secret: `problem` is "lockout"
        # (the TPM refuses every DA-protected object for about `secondsLeft`), "nearLockout" (one more
        # failure would lock the TPM, so the service did not ask it), "shareSpent" (the caller, with its
        # subordinate uids, has its share of the TPM's failures standing, or all callers together the
        # part the service may spend: the service did not ask it; `secondsLeft` 0 when the TPM never
        # forgets a failure by itself), "unreachable", "foreignObject"
        # (another TPM sealed it, or this one was cleared), "policyMismatch" (PCR 7 changed), "malformed"
        # or "failed"; `message` says it for a person.
        error TPMRefused (problem: string, message: string, secondsLeft: int)

        # The service could not read or write its state; it says what, never a secret.
        error ServiceFailure (reason: string)

        # A touch cannot unlock now: the service forgot the vault's key after 5 failed touches
        # (`reason` "lockout", as long as the failed touches stand: until the passcode is entered),
        # it holds no key for another reason ("locked": after a restart, Lock or expiry), or fprintd's
        # fingers are no longer the set the vault accepted ("fingersChanged"; `message` says which).
        error PasscodeRequired (reason: string, message: ?string)

        # No finger is enrolled for the vault on the service's reader `reader`.
        error NoFingerEnrolled (reader: string)

        # This finger is not enrolled for the vault.
        error FingerNotEnrolled (finger: string)

        # The touch matched none of the vault's fingers; counted. `touchesLeft` 0: the key is
        # forgotten and the passcode is needed. `lost`: prints the reader turned out to have lost,
        # and how to enroll them again.
        error NoMatch (failedTouches: int, touchesLeft: int, lost: ?string)

        # The reader could not read the finger (short, center, remove, general); not counted.
        error ScanRetry (reason: string)

        # No finger arrived within `seconds`; not counted.
        error ScanTimedOut (seconds: int)

        # The service's reader cannot scan: `problem` is noReader, busy, unplugged, noPermission,
        # deviceError or printNotStored (the reader lost every print the touch was checked against:
        # no failed touch); `message` says it for a person.
        error ReaderUnavailable (problem: string, message: string)

        # The caller may not scan (EnrollFinger, UnlockWithTouch): the service scans only for the user
        # whose session is active and local at the reader's seat, as logind says, and a caller's process
        # that belongs to a session must belong to that one. `problem` is "remote" (the caller's session
        # is a remote login), "notActive" (no session, another user's, or another session of the caller's
        # is active at the seat) or "unknown" (logind could not be asked); `message` says it for a person.
        # Asked before the request waits for the reader and again when its turn comes; nothing is counted.
        error NotAtSeat (problem: string, message: string)

        # ImportFinger: the template was made on `reader`, the service's reader is `serviceReader`
        # (empty when it has none).
        error ReaderMismatch (reader: string, serviceReader: string)

        # The service's reader `reader` is of the wrong kind for this vault: a "hardware" vault refuses
        # the simulated and virtual_* readers, a "test" vault refuses every other (VaultPolicy.kind).
        error WrongReaderKind (reader: string, kind: string)

        # ReleaseWithinReuseWindow outside the window: a touch is needed. `maxTries`
        # and `scanTimeoutSeconds` are the vault's (absent until SetVaultPolicy was called).
        error ScanRequired (maxTries: ?int, scanTimeoutSeconds: ?int)

        """
}
