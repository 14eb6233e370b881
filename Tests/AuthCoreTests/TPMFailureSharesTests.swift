import AuthCore
import FingerlockTestSupport
import Foundation
import Testing

/// The rule fingerlockd hosts over the TPM's shared dictionary-attack counter: no account spends
/// another's part of it, the machine's other users keep theirs, and only the TPM's own recovery
/// gives a share back.
@Suite(.timed) struct TPMFailureSharesTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func reading(_ failed: Int, of maximum: Int = 3, interval: Int = 1000) -> TPMCounterReading {
        TPMCounterReading(failedTries: failed, maximumTries: maximum, interval: interval)
    }

    /// Asks as `account` and, when asked, records what the TPM did: `counted` keeps the charge (and
    /// raises the counter), otherwise it is taken out.
    func attempt(
        _ account: String, _ ledger: inout TPMFailureLedger, _ tpm: inout TPMCounterReading, counted: Bool
    ) -> TPMShareRefusal? {
        switch TPMFailureShares.decide(account: account, ledger: ledger, reading: tpm, now: now, id: UUID()) {
        case .refuse(let refusal):
            return refusal
        case .ask(let charged, let charge):
            ledger = counted ? charged : charged.removing(charge.id)
            if counted { tpm.failedTries += 1 }
            return nil
        }
    }

    @Test(arguments: [
        // maximumTries, reserve, pool, share
        (2, 1, 1, 1), (3, 1, 2, 1), (4, 2, 2, 1), (5, 2, 3, 1), (10, 5, 5, 1), (32, 16, 16, 4), (64, 32, 32, 8),
    ])
    func theMachineKeepsHalfAndOneAccountAQuarterOfTheRest(limits: (Int, Int, Int, Int)) {
        let (maximum, reserve, pool, share) = limits
        #expect(TPMFailureShares.machineReserve(maximumTries: maximum) == reserve)
        #expect(TPMFailureShares.pool(maximumTries: maximum) == pool)
        #expect(TPMFailureShares.share(maximumTries: maximum) == share)
        // While the pool holds two or more, one account's share always leaves another some room.
        if pool >= 2 { #expect(share < pool) }
    }

    @Test(arguments: [3, 4, 5, 10, 32, 64])
    func oneAccountsWrongPasscodesNeverLeaveAnotherWithoutRoom(maximum: Int) {
        var ledger = TPMFailureLedger()
        var tpm = reading(0, of: maximum)
        var refused = 0
        for _ in 0..<(maximum * 2) where attempt("bob", &ledger, &tpm, counted: true) != nil { refused += 1 }
        #expect(ledger.standing("bob") == TPMFailureShares.share(maximumTries: maximum))
        #expect(refused == maximum * 2 - TPMFailureShares.share(maximumTries: maximum))
        // Alice's right passcode is asked, and leaves nothing standing.
        #expect(attempt("alice", &ledger, &tpm, counted: false) == nil)
        #expect(ledger.standing("alice") == 0)
        // Even her wrong one is asked: the TPM is never taken to its last failure.
        #expect(attempt("alice", &ledger, &tpm, counted: true) == nil)
        #expect(tpm.failedTries <= TPMFailureShares.pool(maximumTries: maximum))
    }

    @Test func aRefusalSaysWhoseFailuresAndTheRealWait() throws {
        var ledger = TPMFailureLedger()
        var tpm = reading(0)
        #expect(attempt("bob", &ledger, &tpm, counted: true) == nil)
        let refusal = try #require(attempt("bob", &ledger, &tpm, counted: true))
        #expect(refusal.reason == .shareSpent)
        #expect(refusal.standing == 1 && refusal.share == 1)
        // One failure on the counter, Bob's: forgotten after one interval.
        #expect(refusal.secondsLeft == 1000)
        #expect(tpm.failedTries == 1)
    }

    @Test func aChargeGoesOnlyWhenTheTPMHasForgottenAFailure() {
        var ledger = TPMFailureLedger()
        var tpm = reading(0)
        #expect(attempt("bob", &ledger, &tpm, counted: true) == nil)
        // Time alone, or a restart of the service, gives nothing back: only the TPM's count does.
        #expect(attempt("bob", &ledger, &tpm, counted: true) != nil)
        tpm.failedTries = 0
        #expect(attempt("bob", &ledger, &tpm, counted: true) == nil)
        #expect(ledger.standing("bob") == 1)
    }

    @Test func theOldestChargeGoesFirstSoALaterOneNeverDelaysAnEarlierOne() throws {
        var ledger = TPMFailureLedger()
        var tpm = reading(0, of: 10)
        #expect(attempt("alice", &ledger, &tpm, counted: true) == nil)
        #expect(attempt("bob", &ledger, &tpm, counted: true) == nil)
        // Alice's charge is the older: hers is the one the first forgotten failure takes.
        let alice = try #require(attempt("alice", &ledger, &tpm, counted: true))
        let bob = try #require(attempt("bob", &ledger, &tpm, counted: true))
        #expect(alice.secondsLeft == 1000)
        #expect(bob.secondsLeft == 2000)
        tpm.failedTries = 1
        #expect(attempt("alice", &ledger, &tpm, counted: false) == nil)
        #expect(attempt("bob", &ledger, &tpm, counted: false) != nil)
    }

    @Test func failuresOfTheMachinesOtherUsersKeepChargesStandingAndFillThePool() throws {
        var ledger = TPMFailureLedger()
        var tpm = reading(0, of: 4)
        #expect(attempt("bob", &ledger, &tpm, counted: true) == nil)
        // Disk unlock fails once: two on the counter, one of them Bob's.
        tpm.failedTries += 1
        let alice = try #require(attempt("alice", &ledger, &tpm, counted: false))
        #expect(alice.reason == .poolSpent)
        #expect(alice.secondsLeft == 1000)
        // The TPM forgets one: which one is not known, so Bob's charge still stands, but the pool has room.
        tpm.failedTries = 1
        #expect(attempt("bob", &ledger, &tpm, counted: true) != nil)
        #expect(attempt("alice", &ledger, &tpm, counted: false) == nil)
    }

    @Test func chargesLeftByACrashAreTakenOutByTheTPMsCount() {
        // Three charges written before attempts that never ended; the TPM counted one of them.
        let ledger = TPMFailureLedger(charges: (0..<3).map { _ in TPMFailureLedger.Charge(id: UUID(), account: "bob", countedAt: now) })
        let standing = TPMFailureShares.reconciled(ledger, with: reading(1, of: 32))
        #expect(standing.charges == Array(ledger.charges.suffix(1)))
        #expect(TPMFailureShares.reconciled(ledger, with: reading(0, of: 32)).charges.isEmpty)
    }

    @Test func aTPMThatNeverForgetsGivesNoWaitTime() throws {
        var ledger = TPMFailureLedger()
        var tpm = reading(0, interval: 0)
        #expect(attempt("bob", &ledger, &tpm, counted: true) == nil)
        let refusal = try #require(attempt("bob", &ledger, &tpm, counted: true))
        #expect(refusal.secondsLeft == nil)
    }

    @Test func aShareOfSeveralIsSpentOneChargeAtATime() throws {
        var ledger = TPMFailureLedger()
        var tpm = reading(0, of: 32)
        for _ in 0..<4 { #expect(attempt("bob", &ledger, &tpm, counted: true) == nil) }
        let refusal = try #require(attempt("bob", &ledger, &tpm, counted: true))
        #expect(refusal.standing == 4 && refusal.share == 4)
        // Bob's oldest charge goes with the first forgotten failure.
        #expect(refusal.secondsLeft == 1000)
        tpm.failedTries = 3
        #expect(attempt("bob", &ledger, &tpm, counted: true) == nil)
        #expect(ledger.standing("bob") == 4)
    }
}
