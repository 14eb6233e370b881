import AuthCore
import Crypto
import FingerlockProtocol
import FoundationEssentials
import Logging
import TrustedPlatform

extension ServiceCore {
    /// The slot key of `bound` for `stretched`, the TPM asked only within the caller's share of its
    /// failures (`TPMFailureShares`): the ledger is read, reconciled with the TPM's counter and, when
    /// the TPM may be asked, charged and written before it is; the charge is taken out again only
    /// when the TPM certainly counted nothing. All of it under the ledger's lock, so no two attempts
    /// both find the last room (a caller's clients side by side, or two callers).
    ///
    /// Throws the TPM's `TPMError`s as before, a `TPMShareRefusal` when the TPM was not asked, and
    /// the state's errors when the ledger cannot be used (nothing asked then either).
    func boundSlotKey(_ bound: TPMBoundSlot, stretched: SymmetricKey, vault: UUID, owner: VaultOwner) throws
        -> SymmetricKey
    {
        let account = Self.shareAccount(dependencies.accounts.account(of: owner.uid))
        return try dependencies.tpmFailures.exclusively { ledger, save in
            let state = try dependencies.tpm.lockoutState()
            // The TPM's own lockout, and its last failure, as before (worded for everyone alike).
            if let refusal = state.refusal { throw refusal }
            let reading = TPMCounterReading(
                failedTries: state.failedTries, maximumTries: state.maximumTries, interval: state.interval)
            switch TPMFailureShares.decide(
                account: account, ledger: ledger, reading: reading, now: dependencies.now(), id: UUID())
            {
            case .refuse(let refusal):
                throw refusal
            case .ask(let charged, let charge):
                try save(charged)
                do {
                    let key = try bound.slotKey(stretched: stretched, vault: vault, tpm: dependencies.tpm)
                    // Best effort: a charge that stays makes only this account wait, until the
                    // TPM's count takes it out.
                    try? save(charged.removing(charge.id))
                    return key
                } catch let error as TPMError {
                    if !Self.mayHaveCounted(error) { try? save(charged.removing(charge.id)) }
                    throw error
                }
            }
        }
    }

    /// Whether the TPM may have counted a failure for an unseal that ended in `error`: a wrong
    /// authorization certainly, and a TPM that stopped answering or failed otherwise perhaps. The
    /// others are refusals before any authorization (the object did not load, PCR 7 differs, no
    /// room, lockout).
    static func mayHaveCounted(_ error: TPMError) -> Bool {
        switch error.code {
        case .authorizationFailed, .unreachable, .failed: true
        case .lockout, .nearLockout, .foreignObject, .policyMismatch, .malformed, .busy: false
        }
    }

    /// The name an account's charges go by: the same for a login and its subordinate uids.
    static func shareAccount(_ account: UIDAccount) -> String {
        switch account {
        case .user(let uid): "uid \(uid)"
        case .unclaimed: "unclaimed"
        }
    }

    /// The refusal as the interface says it: a TPM refusal ("shareSpent", a delay to the client)
    /// with the sentence the user reads and the real wait.
    static func shareRefused(_ refusal: TPMShareRefusal) -> VarlinkError {
        let wait =
            refusal.secondsLeft.map { "try again in about \(TPMLockoutState.describe($0))" }
            ?? "the TPM forgets none by itself (its interval is 0); its owner can reset its counter"
        let message: String
        switch refusal.reason {
        case .shareSpent:
            let yours = refusal.standing == 1 ? "a wrong passcode of yours" : "\(refusal.standing) wrong passcodes of yours"
            message =
                "The TPM still counts \(yours) (each user may have \(refusal.share) standing, so that no user spends"
                + " the failures the TPM allows everyone on this machine); fingerlockd will not ask it for you again"
                + " until it has forgotten one: " + wait + "."
        case .poolSpent:
            message =
                "The TPM counts \(refusal.failedTries) failed authorizations of the \(refusal.maximumTries) it allows;"
                + " fingerlockd keeps the rest for the machine's other users of the TPM (disk unlock at boot) and"
                + " will not ask it now: " + wait + "."
        }
        return VarlinkError(
            .tpmRefused,
            [
                "problem": .string("shareSpent"), "message": .string(message),
                "secondsLeft": .int(refusal.secondsLeft ?? 0),
            ])
    }
}
