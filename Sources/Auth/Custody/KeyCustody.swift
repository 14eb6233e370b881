import AuthCore
import Fingerprint
import TrustedPlatform
import Vault

/// Who keeps a vault's key, its counters and its fingers: the one difference between user mode
/// (`LocalCustody`: the kernel keyring, the user's attempt file, the reader in this process) and
/// system mode (`ServiceCustody`: fingerlockd keeps them, out of the user's reach). The
/// `AuthEnvironment` chooses one from the vault's recorded mode when it reads the header and holds it
/// for the command (`custody`, below, the only switch on the mode); `AuthContext` and the use cases
/// call it where the modes differ. Its members are primitives (where the key is kept and released,
/// the passcode sealer, who counts, the fingers, status facts), never "which mode are you?": the
/// rules that use them are written once, in the use cases and AuthCore, so a third custody is one
/// more case here and one more conformance. Both host the same rules (AuthCore); `CustodyParityTests` runs
/// the same scenarios against both.
protocol KeyCustody: Sendable {
    // MARK: Touches

    /// What keeps a touch from unlocking now, known without unlocking (`canEvaluate`): throws it.
    func checkBiometrics() async throws

    /// Unlocks with a touch (or within the reuse window, without one), up to the vault's tries.
    func unlockWithFinger() async throws -> Vault

    /// `verify`: one touch, never a reuse; the key from the cache, else the passcode first.
    func verifyTouch(finger: Finger?) async throws -> TouchVerification.VerifiedTouch

    // MARK: The key after the passcode

    /// The vault for reading what is no secret to its owner (settings, fingers): without a touch.
    func openWithoutTouch(reason: String) async throws -> Vault

    /// After the passcode (or the recovery key, or a restore) opened `vault`: keeps its key where a
    /// touch can release it.
    func keep(_ vault: Vault) throws

    /// The passcode itself (not the recovery key, not a touch) opened `vault` now: where that proof
    /// waits for `reuse-window` (user mode: a marker in the user's keyring that `enroll` reads; the
    /// service asks for its own proof, so system mode leaves nothing in the user's keyring).
    func passcodeProven(_ vault: Vault)

    /// A rekey committed: the old key goes, the new one is kept.
    func rekeyed(_ vault: Vault) throws

    /// A setting sealed in `vault` changed: what depends on it follows.
    func settingChanged(_ key: SecuritySettings.Key, in vault: Vault) throws

    /// The keyring this process keeps the key in for touches (user mode's); nil where the key is
    /// kept out of this process's reach (fingerlockd's memory).
    var keyring: (any KeyCache)? { get }

    // MARK: The passcode slot

    /// Who opens the vault's passcode slot in this custody's mode, bound to a TPM or not.
    var passcodeSealer: any PasscodeSlotSealer { get }

    /// The TPM a bound slot needs, where this process asks it; nil where the custody's service asks
    /// its own (the CLI then neither reads the TPM's state nor needs access to it).
    var tpmAskedHere: (any TrustedPlatformModule)? { get }

    /// Who seals a new passcode slot in this custody's mode, bound to the TPM as `binding` says
    /// (nil: not bound).
    func passcodeSealer(binding: TPMBinding?) -> any PasscodeSlotSealer

    // MARK: Passcode attempts

    /// Refuses at once while a passcode delay this custody keeps is running.
    func refuseDuringPasscodeDelay() throws

    /// Refuses before a passcode (not the recovery key) is asked when the TPM it is bound to would
    /// not be asked with it; where the custody does not ask the TPM itself, nothing.
    func refuseWhileTheTPMWouldNotBeAsked() throws

    /// The ledger that counts an attempt with `credentials` here; nil when the service counts it.
    func passcodeLedger(for credentials: [VaultCredential]) -> PasscodeLedger?

    /// `credential` opened `vault`.
    func opened(_ vault: Vault, with credential: VaultCredential)

    /// What the user is told of a wrong `credential` beyond "wrong passcode" (the service's count).
    func refusal(_ error: VaultError, for credential: VaultCredential) -> String?

    // MARK: Fingers

    /// Where `enroll` and `forget` put and take the vault's own fingers.
    var ownFingers: any OwnFingers { get }

    /// The enrolled fingers (`fingers`): never a template, only names, readers and dates.
    func enrolledFingers() async throws -> [Enrollment.ListedFinger]

    /// `enroll --reader fprintd`: after the passcode, the vault takes the fingers fprintd has for the
    /// user (its accepted set, ``AcceptedFingers``). `enrolling` (a finger fprintd enrolls first)
    /// runs once the passcode is proven, so a wrong one changes nothing at fprintd.
    func acceptFprintdFingers(enrolling: (@Sendable () async throws -> Void)?) async throws -> AcceptedFingers

    /// `forget --reader fprintd`: after the passcode, the vault stops taking fprintd's fingers;
    /// returns the set it accepted (nil: it took none).
    func stopAcceptingFprintdFingers() async throws -> AcceptedFingers?

    /// `doctor`: the enrolled fingers when they can be known without a prompt.
    func inspectFingers() throws -> SetupStatus

    // MARK: Restore

    /// Which passcode opens a backup in this custody's mode once it is back, when the restore was
    /// authorised with `passcode` on `current`.
    func passcodeAfterRestore(_ passcode: String, current: Vault, backup: Vault) -> RestorePlan.Secret

    /// What would stand in the way of the passcode of `backup` (in this custody's mode) once it is
    /// back, with what still opens it; nil when nothing does.
    func problemAfterRestore(of backup: Vault) -> String?

    // MARK: Status and lock

    /// Adds what this custody knows (the key, the counters, the fingers) to a status.
    func addView(to status: inout VaultStatus) throws

    /// The vault when its key is already kept where this process can take it without a touch or a
    /// prompt (as `status` reads the fingers); nil otherwise.
    func openIfCached() throws -> Vault?
}

extension AuthEnvironment {
    /// The custody of the vault, chosen from the mode its header records when the header is first
    /// read and held for the command: the one place the mode decides. Only the operations that move
    /// a vault replace it (they forget the header).
    var custody: any KeyCustody { heldCustody.custody }

    /// The custody of `mode`, made afresh: for the mode a vault moves to (`system enable`/`disable`,
    /// a reset without fingerlockd, a restore) and a new vault's; never held.
    func custody(for mode: VaultMode) -> any KeyCustody {
        switch mode {
        case .user: LocalCustody(self)
        case .system: ServiceCustody(self)
        }
    }

    /// The custody of an open vault, as its authenticated record says: the one held, unless a
    /// restore changed the mode since the header was read (then that mode's, not held).
    func custody(of vault: Vault) -> any KeyCustody {
        let held = heldCustody
        guard let mode = try? vault.mode, mode != held.mode else { return held.custody }
        return custody(for: mode)
    }

    /// The sealer of each custody, for opening a passcode slot of whichever mode a vault (or a
    /// backup) records.
    var passcodeSealers: PasscodeSealers {
        PasscodeSealers(VaultMode.allCases.map { custody(for: $0).passcodeSealer })
    }
}
