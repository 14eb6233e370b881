/// The TPM's dictionary-attack state, as `TPM2_GetCapability` reports it: one counter and one set
/// of parameters for the whole machine (disk unlock at boot, other programs, fingerlock).
public struct TPMLockoutState: Codable, Equatable, Sendable {
    /// Failed authorizations the TPM currently counts.
    public var failedTries: Int
    /// How many it counts before it locks out (`MAX_AUTH_FAIL`).
    public var maximumTries: Int
    /// Seconds after which it forgets one failure (`LOCKOUT_INTERVAL`); 0: it never does.
    public var interval: Int
    /// Seconds the lockout hierarchy stays locked after a wrong lockout password (`LOCKOUT_RECOVERY`).
    public var recovery: Int
    public var inLockout: Bool
    /// Whether the lockout hierarchy has a password. Without one, anyone who can talk to the TPM
    /// can reset the counter (`tpm2_dictionarylockout -c`): the limit holds against a stolen disk,
    /// not against root or the `tss` group on the running machine.
    public var lockoutPasswordSet: Bool

    public init(failedTries: Int, maximumTries: Int, interval: Int, recovery: Int, inLockout: Bool, lockoutPasswordSet: Bool) {
        self.failedTries = failedTries
        self.maximumTries = maximumTries
        self.interval = interval
        self.recovery = recovery
        self.inLockout = inLockout
        self.lockoutPasswordSet = lockoutPasswordSet
    }

    /// Failures the TPM still takes before it locks out.
    public var triesLeft: Int { max(0, maximumTries - failedTries) }

    /// fingerlock's own rule, applied before the TPM is asked: never be the one whose wrong
    /// passcode puts the TPM in lockout. While one more failure would reach the TPM's limit, the
    /// unlock waits until the TPM forgets one (a TPM that allows a single failure is still asked
    /// once, from zero). Nil when the TPM may be asked now.
    public var refusal: TPMError? {
        if inLockout {
            let seconds = interval > 0 ? interval : recovery
            return TPMError(
                .lockout(seconds: seconds),
                "The TPM is in dictionary-attack lockout (\(failedTries) failed authorizations of the \(maximumTries) it"
                    + " allows, counted for everything on this machine that uses it) and refuses even the right passcode"
                    + (seconds > 0 ? " for about \(Self.describe(seconds))." : " until its lockout is reset."))
        }
        guard failedTries > 0, failedTries + 1 >= maximumTries else { return nil }
        let seconds = max(interval, 1)
        return TPMError(
            .nearLockout(seconds: seconds),
            "The TPM has counted \(failedTries) failed authorizations of the \(maximumTries) it allows before it locks out"
                + " (for everything on this machine that uses it, disk unlock included); fingerlock will not risk the last"
                + " one: try again in about \(Self.describe(seconds)), when the TPM has forgotten one.")
    }

    /// Seconds as the messages word them.
    public static func describe(_ seconds: Int) -> String {
        if seconds < 60 { return "\(max(seconds, 1)) s" }
        let minutes = (seconds + 59) / 60
        return minutes < 60 ? "\(minutes) min" : "\((minutes + 59) / 60) h"
    }
}
