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

    public enum Method: String, Sendable, CaseIterable {
        case registerVault = "RegisterVault"
        case sealPasscodeSlot = "SealPasscodeSlot"
        case unlockWithPasscode = "UnlockWithPasscode"
        case lock = "Lock"
        case status = "Status"
        case forgetVault = "ForgetVault"

        public var qualifiedName: String { ServiceInterface.name + "." + rawValue }
    }

    public enum ErrorName: String, Sendable, CaseIterable {
        case vaultNotRegistered = "VaultNotRegistered"
        case wrongPasscode = "WrongPasscode"
        case passcodeDelayed = "PasscodeDelayed"
        case tooManyVaults = "TooManyVaults"
        case tooManyConnections = "TooManyConnections"
        case messageTooLarge = "MessageTooLarge"
        case serviceFailure = "ServiceFailure"

        public var qualifiedName: String { ServiceInterface.name + "." + rawValue }
    }

    /// The interface description in Varlink's IDL, returned by `GetInterfaceDescription`.
    public static let description = """
        # fingerlockd, the system-mode service of fingerlock (protocol version 1).
        #
        # The service keeps, for each (user, vault), a random 32-byte secret that is entangled into
        # the vault's passcode slot, the passcode attempt counters, and the unlocked vault key (in
        # its memory only). The user is always the peer's kernel credentials (SO_PEERCRED), never
        # anything a message says: a vault is only ever the caller's own, and another user's vault
        # with the same id is invisible. A vault id is a UUID string. Binary values are base64.
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
          delaySeconds: int
        )

        # Creates the vault's secret if it has none yet. Calling it again changes nothing.
        method RegisterVault(vault: string) -> (created: bool)

        # Seals `key` (the store master key, 32 bytes) under
        # KEK = HKDF-SHA256(ikm: stretched || secret, info: "fingerlock system-mode passcode slot v1" || vault),
        # the vault id in lower case,
        # with AES-GCM, authenticating `associatedData`. `stretched` is the client's scrypt output
        # for the passcode (32 bytes). Returns the sealed slot (nonce || ciphertext || tag).
        method SealPasscodeSlot(vault: string, stretched: string, key: string, associatedData: string) -> (sealedSlot: string)

        # Counts the attempt durably before anything else (refused at once while a delay runs),
        # then opens the sealed slot. On success the counters are cleared, the key is kept in the
        # service's memory for `cacheSeconds` (0 to 172800; 0 keeps nothing) and returned.
        method UnlockWithPasscode(vault: string, stretched: string, sealedSlot: string, associatedData: string, cacheSeconds: int) -> (key: string, cachedSeconds: int)

        # Forgets the vault's cached key.
        method Lock(vault: string) -> (wasUnlocked: bool)

        # The vault's state, without any secret.
        method Status(vault: string) -> (status: VaultStatus)

        # Deletes the vault's secret, counters and cached key, after the same proof (and the same
        # counting) as UnlockWithPasscode. The sealed slot can never be opened afterwards.
        method ForgetVault(vault: string, stretched: string, sealedSlot: string, associatedData: string) -> ()

        # The caller has no vault with this id here.
        error VaultNotRegistered (vault: string)

        # The passcode (or the slot, or its associated data) did not match; counted.
        error WrongPasscode (failedPasscodes: int, delaySeconds: int)

        # A passcode delay is still running: try again in `secondsLeft` seconds. Not counted.
        error PasscodeDelayed (secondsLeft: int, failedPasscodes: int)

        # The caller already has `limit` vaults registered.
        error TooManyVaults (limit: int)

        # The service or the caller has too many open connections; the connection is closed.
        error TooManyConnections (limit: int)

        # A message exceeded `limit` bytes; the connection is closed.
        error MessageTooLarge (limit: int)

        # The service could not read or write its state; it says what, never a secret.
        error ServiceFailure (reason: string)

        """
}
