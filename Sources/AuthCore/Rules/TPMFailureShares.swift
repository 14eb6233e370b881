public import FoundationEssentials

/// How fingerlockd shares the TPM's dictionary-attack counter between its callers, none of whom
/// may spend another's part of it. The counter is the whole machine's: every wrong passcode of any
/// user's bound vault raises it, and at its limit the TPM refuses everyone's right passcode (and the
/// disk's unlock at boot). So:
///
/// - fingerlockd's callers together never take the counter past `pool` (half the TPM's limit,
///   rounded up, and never its last failure): the rest is the machine's other users'
///   (`machineReserve`);
/// - one account (a login with its subordinate uids) never has more than `share` failures standing
///   (a quarter of the pool, at least one, and while the pool holds two or more, at most all but
///   one of it): whatever it does — many vaults, many clients at once, vaults reset or forgotten —
///   another account with none standing still finds room for its own passcode;
/// - a charge stands until the TPM has forgotten a failure for it (one per `LOCKOUT_INTERVAL`, or
///   all at once through its lockout authorization): the TPM's own recovery, read from its counter,
///   is the only thing that gives a share back.
///
/// Pure: the host reads the TPM's counter and its ledger under its lock, writes the ledger this
/// returns before it asks the TPM, and takes the charge out only when the TPM counted nothing.
public enum TPMFailureShares {
    /// Failures fingerlockd's callers leave to the TPM's other users: half, and at least the last.
    public static func machineReserve(maximumTries: Int) -> Int {
        max(1, maximumTries / 2)
    }

    /// Failures fingerlockd's callers may have standing together: the TPM is asked only while it
    /// counts fewer.
    public static func pool(maximumTries: Int) -> Int {
        max(0, maximumTries - machineReserve(maximumTries: maximumTries))
    }

    /// Failures one account may have standing.
    public static func share(maximumTries: Int) -> Int {
        max(1, pool(maximumTries: maximumTries) / 4)
    }

    /// The charges that may still stand: the TPM remembers at most `failedTries` failures, so at
    /// most that many charges — the newest, since whichever failure it forgot, the oldest charge
    /// has waited longest. Failures that others caused keep more charges standing, never fewer.
    public static func reconciled(_ ledger: TPMFailureLedger, with reading: TPMCounterReading) -> TPMFailureLedger {
        let keep = max(0, min(ledger.charges.count, reading.failedTries))
        return TPMFailureLedger(charges: Array(ledger.charges.suffix(keep)))
    }

    public enum Decision: Equatable, Sendable {
        /// Ask the TPM, after writing `ledger` (the standing charges and `charge`, this attempt's).
        case ask(ledger: TPMFailureLedger, charge: TPMFailureLedger.Charge)
        /// Do not ask it; nothing is counted.
        case refuse(TPMShareRefusal)
    }

    /// Whether `account` may have the TPM judge a passcode now, with the ledger as written (its
    /// charges are reconciled with `reading` here). `id` names the new charge.
    public static func decide(
        account: String, ledger: TPMFailureLedger, reading: TPMCounterReading, now: Date, id: UUID
    ) -> Decision {
        let standing = reconciled(ledger, with: reading).charges
        let share = share(maximumTries: reading.maximumTries)
        let pool = pool(maximumTries: reading.maximumTries)
        let mine = standing.indices.filter { standing[$0].account == account }
        // How many failures the TPM must forget before the account is below its share: the charge
        // that must go (with every older one of the account's) goes once the TPM remembers no more
        // failures than there are charges after it.
        var forShare = 0
        if mine.count >= share {
            let last = mine[mine.count - share]
            forShare = reading.failedTries - (standing.count - last - 1)
        }
        // And before the callers together are below the pool.
        let forPool = max(0, reading.failedTries - pool + 1)
        let needed = max(forShare, forPool)
        guard needed > 0 else {
            let charge = TPMFailureLedger.Charge(id: id, account: account, countedAt: now)
            return .ask(ledger: TPMFailureLedger(charges: standing + [charge]), charge: charge)
        }
        return .refuse(
            TPMShareRefusal(
                reason: forShare > 0 ? .shareSpent : .poolSpent, standing: mine.count, share: share,
                failedTries: reading.failedTries, maximumTries: reading.maximumTries,
                secondsLeft: reading.interval > 0 ? needed * reading.interval : nil))
    }
}
