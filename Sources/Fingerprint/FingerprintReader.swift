/// A fingerprint reader: real (libfprint) or simulated.
///
/// The reader persists nothing: enrolling returns an ``EnrolledPrint`` and verifying takes the prints
/// to match against. Every scan operation waits at most `timeout` for a finger and ends promptly when
/// its task is cancelled (throwing `CancellationError`).
public protocol FingerprintReader: Sendable {
    /// What the reader is and what it can do.
    var info: ReaderInfo { get }

    /// Enrolls `finger`: one event per stage or retry hint, ending with `.enrolled(print)`.
    /// `timeout` bounds the wait for each touch.
    func enroll(_ finger: Finger, username: String, timeout: Duration) -> AsyncThrowingStream<EnrollEvent, any Error>

    /// One touch checked against one print. `fingerRead` is called (at most once, on any thread)
    /// when the reader has read a finger, before the result is returned: not for a scan that
    /// timed out, ended in a retry hint, or failed or was cancelled before a finger was read. A
    /// cancellation after it can still end the call with `CancellationError`.
    func verify(_ print: EnrolledPrint, timeout: Duration, fingerRead: @escaping @Sendable () -> Void) async throws
        -> ScanResult

    /// One touch checked against several prints (readers with ``ReaderFeatures/identify``);
    /// `fingerRead` as for ``verify(_:timeout:fingerRead:)``.
    func identify(_ prints: [EnrolledPrint], timeout: Duration, fingerRead: @escaping @Sendable () -> Void)
        async throws -> ScanResult

    /// Every print kept on the reader's own storage, whoever enrolled it (readers with
    /// ``ReaderFeatures/storageList``); each stored print that is one of `known` says which.
    func storedPrints(known: [EnrolledPrint]) async throws -> [StoredPrint]

    /// Deletes one print from the reader's own storage (``ReaderFeatures/storageDelete``).
    func deleteStoredPrint(_ print: StoredPrint) async throws

    /// Empties the reader's own storage (``ReaderFeatures/storageClear``).
    func clearStorage() async throws
}

extension FingerprintReader {
    public var identity: ReaderIdentity { info.identity }

    /// One touch checked against one print.
    public func verify(_ print: EnrolledPrint, timeout: Duration) async throws -> ScanResult {
        try await verify(print, timeout: timeout, fingerRead: {})
    }

    /// One touch checked against several prints (readers with ``ReaderFeatures/identify``).
    public func identify(_ prints: [EnrolledPrint], timeout: Duration) async throws -> ScanResult {
        try await identify(prints, timeout: timeout, fingerRead: {})
    }

    /// Deletes the reader's own copy of an enrolled print.
    public func deleteStoredPrint(_ print: EnrolledPrint) async throws {
        try await deleteStoredPrint(
            StoredPrint(
                reader: print.reader, finger: print.finger, username: nil, enrolled: print.enrolled,
                template: print.template, known: print))
    }

    /// Enrolls and returns the final print, reporting each event to `progress`.
    public func enroll(
        _ finger: Finger, username: String, timeout: Duration,
        progress: (EnrollEvent) -> Void
    ) async throws -> EnrolledPrint {
        for try await event in enroll(finger, username: username, timeout: timeout) {
            progress(event)
            if case .enrolled(let print) = event { return print }
        }
        try Task.checkCancellation()
        throw FingerprintError(.deviceError, "Enrollment ended without a print.")
    }

    /// Verifies with `identify` where the reader can, otherwise against the first print;
    /// `fingerRead` as for ``verify(_:timeout:fingerRead:)``.
    public func match(
        _ prints: [EnrolledPrint], timeout: Duration, fingerRead: @escaping @Sendable () -> Void = {}
    ) async throws -> ScanResult {
        guard let first = prints.first else {
            throw FingerprintError(.printNotFound, "No finger is enrolled on \(identity).")
        }
        if prints.count > 1 && info.canIdentify {
            return try await identify(prints, timeout: timeout, fingerRead: fingerRead)
        }
        return try await verify(first, timeout: timeout, fingerRead: fingerRead)
    }
}
