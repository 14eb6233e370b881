import Fingerprint

/// A "driver script": how a test makes things happen at a reader, so that the same
/// ``ReaderConformance`` cases run against every ``FingerprintReader`` implementation.
///
/// To add a reader: write a type conforming to `ReaderDriver` whose methods stage each event for that
/// reader (for libfprint's virtual drivers they speak the socket protocols; for the simulated reader
/// they would feed its in-process script), list what it can stage in ``abilities``, and call the
/// `ReaderConformance` functions from `@Test`s — see `LibfprintReaderTests` for the pattern.
///
/// Every stimulus is for the scan operation that is running or about to start: the conformance cases
/// start the operation first and then call the stimulus concurrently.
protocol ReaderDriver: Sendable {
    /// The reader under test.
    var reader: any FingerprintReader { get }
    /// What this driver can make happen.
    var abilities: DriverAbilities { get }
    /// Fingers that can be enrolled and told apart by the reader (at least three), and one finger that
    /// is never enrolled by the conformance cases (`stranger`).
    var fingers: [Finger] { get }
    var stranger: Finger { get }

    /// `finger` touches the reader.
    func touch(_ finger: Finger) async throws
    /// The reader reports a retry condition instead of a touch.
    func retry(_ reason: RetryReason) async throws
    /// The running operation fails as the reader would with `code`.
    func fail(_ code: FingerprintError.Code) async throws
    /// The reader is unplugged during the running operation.
    func unplug() async throws
    /// A non-scan operation (list, delete, clear) may proceed.
    func allowStorageOperation() async throws
    /// The operation ended: drop per-operation state (for example a connection to the device).
    func operationEnded() async
}

/// What a ``ReaderDriver`` can stage; cases needing more are not run for it.
struct DriverAbilities: Sendable {
    /// A retry condition during enrollment (libfprint's `virtual_image` hangs on it).
    var retryDuringEnroll: Bool
    /// A retry condition during verify or identify.
    var retryDuringScan: Bool
    /// Unplugging the reader mid-operation.
    var unplug: Bool
    /// The device failures it can produce, with the code the reader must report.
    var failures: [FingerprintError.Code]
}
