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
    /// unlock waits until the TPM has forgotten enough. Nil when the TPM may be asked now.
    public var refusal: TPMError? {
        guard inLockout || failedTries + 1 >= maximumTries else { return nil }
        let seconds = secondsUntilAsked
        let wait = seconds.map { "try again in about \(Self.describe($0))" } ?? "it never forgets one by itself (its interval is 0)"
        if inLockout {
            return TPMError(
                .lockout(seconds: seconds ?? 0),
                "The TPM is in dictionary-attack lockout (\(failedTries) failed authorizations of the \(maximumTries) it"
                    + " allows, counted for everything on this machine that uses it) and refuses even the right passcode: "
                    + wait + ".")
        }
        return TPMError(
            .nearLockout(seconds: seconds ?? 0),
            "The TPM has counted \(failedTries) failed authorizations of the \(maximumTries) it allows before it locks out"
                + " (for everything on this machine that uses it, disk unlock included); fingerlock will not risk the last"
                + " one: " + wait + ".")
    }

    /// Seconds until fingerlock asks the TPM again: until one more failure would no longer reach the
    /// limit, the TPM forgetting one failure per interval. Nil when it never forgets.
    public var secondsUntilAsked: Int? {
        guard interval > 0 else { return nil }
        return max(1, failedTries - (maximumTries - 2)) * interval
    }

    /// Whether fingerlock can use this TPM for a passcode at all: one that locks out at the first
    /// failure could never be asked without risking it.
    public var allowsGuarding: Bool { maximumTries >= 2 }

    /// Seconds as the messages word them.
    public static func describe(_ seconds: Int) -> String {
        if seconds < 60 { return "\(max(seconds, 1)) s" }
        let minutes = (seconds + 59) / 60
        return minutes < 60 ? "\(minutes) min" : "\((minutes + 59) / 60) h"
    }
}
