public import Fingerprint

/// fprintd as the finger seam asks it, for one user (the caller's own in user mode; the vault owner,
/// named, when fingerlockd asks): the fprintd client in Fingerprint conforms, and tests may use any
/// other keeper that answers the same way.
public protocol FprintdFingers: Sendable {
    /// Starts getting ready to answer (connecting, finding the device) in the background, for a
    /// command that will ask soon and has other work first; never waits, never fails.
    func prepare()

    /// fprintd's default device; throws a ``FingerprintError`` (`.noReader` when fprintd has none).
    func device() async throws -> FprintdDevice

    /// The user's fingers enrolled with fprintd on its default device (empty when none).
    func enrolledFingers() async throws -> [Finger]

    /// The device's name and the user's fingers, asked now, blocking: for a caller on a thread of
    /// its own that must not wait for Swift's cooperative threads (fingerlockd answering a passcode
    /// unlock on the connection's thread). Each call has fprintd's time limit.
    func fingersNow() throws -> AcceptedFingers

    /// One verify of `finger` (nil: fprintd's `any`) up to its first answer: a match (with the finger
    /// fprintd selected, when it names one), a no-match, or a retry hint (the verify is then
    /// stopped; the caller asks again). Claims the device for the scan and always releases it, also
    /// on errors, timeout and cancellation. `fingerRead` as for ``FingerSource``.
    func verify(_ finger: Finger?, timeout: Duration, fingerRead: @escaping @Sendable () -> Void) async throws
        -> FprintdVerifyResult

    /// Enrolls `finger` with fprintd (the print stays fprintd's), reporting each step; deletes the
    /// finger first when fprintd has it. Needs polkit's `enroll` (the login password). Stops the
    /// enrollment and releases the device in every case. A failure after fprintd's old print of the
    /// finger was deleted is a ``FprintdEnrollmentUnfinished``.
    func enroll(_ finger: Finger, timeout: Duration, progress: @escaping @Sendable (EnrollEvent) -> Void) async throws
}

/// An enrollment with fprintd that did not finish after fprintd's old print of the finger was
/// deleted: fprintd no longer has that finger. `cause` says why it did not finish.
public struct FprintdEnrollmentUnfinished: Error {
    public var cause: any Error

    public init(cause: any Error) { self.cause = cause }
}

extension FprintdFingers {
    /// Keepers with nothing to get ready.
    public func prepare() {}
}
