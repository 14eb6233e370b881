public import Fingerprint

/// One touch under the failed-touch rule, the same in both modes (user mode hosts it over the
/// user's attempt file and the keyring, fingerlockd over its own counters and held keys):
///
/// - a touch counts when the reader reports a finger (``TouchCount``), and a match clears the count;
/// - a retry hint, and a touch of prints the reader lost, are no touch;
/// - the touch that reaches ``TouchLedger/lockoutThreshold`` failures in a row, and every touch
///   asked for while locked out, forgets the held key: after a lockout nothing can be released
///   without the passcode, in either mode, and `status` says the vault is locked.
public struct TouchAttempt: Sendable {
    let ledger: TouchLedger
    let forgetKey: @Sendable () -> Void

    /// - Parameter forgetKey: forgets the key the host holds for a touch to release.
    public init(_ ledger: TouchLedger, forgetKey: @escaping @Sendable () -> Void) {
        self.ledger = ledger
        self.forgetKey = forgetKey
    }

    /// Whether the vault is locked out of fingerprint unlock; forgets the held key when it is.
    public func lockedOut() throws -> Bool {
        guard try ledger.isLockedOut() else { return false }
        forgetKey()
        return true
    }

    /// Runs one scan (`scan`, which calls `fingerRead` when the reader has a finger) and applies the
    /// rule to what it showed. A scan that fails or is cancelled after the finger was read stays
    /// counted, maybe as the last touch allowed.
    public func run(
        _ scan: (_ fingerRead: @escaping @Sendable () -> Void) async throws -> FingerMatch
    ) async throws -> TouchVerdict {
        let count = TouchCount(ledger)
        let match: FingerMatch
        do {
            match = try await scan { count.fingerRead() }
        } catch {
            if let failures = count.made, failures >= TouchLedger.lockoutThreshold { forgetKey() }
            throw error
        }
        switch match {
        case .match(let finger):
            try ledger.matched()
            return .matched(finger)
        case .noMatch(let note):
            let failures = try count.failures()
            if failures >= TouchLedger.lockoutThreshold { forgetKey() }
            return .noMatch(failures: failures, note: note)
        case .retry(let reason):
            try count.undo()
            return .retry(reason)
        case .printsLost(let sentence):
            try count.undo()
            return .printsLost(sentence)
        }
    }
}

/// What one touch came to under the failed-touch rule.
public enum TouchVerdict: Sendable, Equatable {
    /// Matched (`finger` when the source says which); the failed-touch count is cleared.
    case matched(Finger?)
    /// Counted as failed: `failures` in a row now (from ``TouchLedger/lockoutThreshold`` on, the held
    /// key is forgotten). `note`: what the no-match message adds (see ``FingerMatch/noMatch(note:)``).
    case noMatch(failures: Int, note: String?)
    /// Not read; not counted.
    case retry(RetryReason)
    /// Every print checked is gone from the reader; not counted.
    case printsLost(String)
}
