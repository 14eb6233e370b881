public import Fingerprint
public import Vault

/// Why fingerlockd did not do what was asked: the one error type of the `SystemService` seam.
public struct SystemServiceError: Error, Sendable {
    public enum Code: Sendable {
        // The passcode slot.

        /// The passcode did not open the slot; the service counted it (`delaySeconds` before the
        /// next try, 0: none).
        case wrongPasscode(failedPasscodes: Int, delaySeconds: Int)
        /// A passcode delay is still running; not counted.
        case passcodeDelayed(secondsLeft: Int, failedPasscodes: Int)
        /// The service has no secret for this vault (it was forgotten, or its state was lost).
        case notRegistered

        // Touches and fingers.

        /// The service holds no key for the vault (`lockout`: it forgot it after failed touches).
        case passcodeRequired(lockout: Bool)
        /// The vault takes fprintd's fingers and fprintd's set is not the one it accepted: the
        /// passcode accepts it. The service's sentence says which fingers changed.
        case fingersChanged(String)
        case noFingerEnrolled(reader: String)
        case fingerNotEnrolled(Finger)
        /// Counted; `touchesLeft` 0: the service forgot the key. `lost`: prints the service's reader
        /// turned out to have lost, said to the user.
        case noMatch(failedTouches: Int, touchesLeft: Int, lost: String? = nil)
        /// The service's reader lost every print the touch was checked against: no failed touch.
        case printsLost(String)
        case retry(RetryReason)
        case timedOut
        /// Asked to release without a scan outside the reuse window: a touch is needed, with the
        /// vault's tries and scan timeout when its owner told them.
        case scanNeeded(tries: Int?, scanTimeoutSeconds: Int?)
        /// The reader cannot scan (no reader, busy, unplugged, …), as the reader would say it.
        case reader(FingerprintError)
        /// A template made on `reader` cannot match on the service's reader (`serviceReader`,
        /// empty when it has none).
        case readerMismatch(reader: String, serviceReader: String)
        /// The service's reader `reader` is of the wrong kind for this `kind` of vault.
        case wrongReaderKind(reader: String, kind: VaultKind)
        /// The service scans only for the user active and local at the reader's seat, and the caller
        /// is not (a remote session, or another session is active there); `unverifiable`: the service
        /// could not ask logind. `evidence` says it for a person.
        case notAtSeat(evidence: String, unverifiable: Bool)

        /// The slot is bound to the service's TPM, which did not release its secret (or could not
        /// seal one): `problem` as the interface names it (`TPMRefused`), `secondsLeft` for a lockout.
        case tpmRefused(problem: String, message: String, secondsLeft: Int)

        // The service itself.

        /// No service at the socket, it went away, did not answer in time, or is not the service
        /// user; the message says which and how to fix it.
        case unreachable(String)
        /// The service answered with a failure of its own, or something the interface does not say.
        case failure(String)
    }

    public var code: Code

    public init(_ code: Code) { self.code = code }
}
