internal import CFprint

/// A reader driven by libfprint: a USB reader, or one of libfprint's `virtual_*` test drivers.
///
/// Every call runs on the ``LibfprintContext``'s thread, one operation at a time. The device is opened
/// for each operation and closed after it, even when the operation fails or is cancelled, so a crash,
/// an unplug or a suspend never leaves the reader claimed.
public final class LibfprintReader: FingerprintReader {
    let context: LibfprintContext
    let handle: DeviceHandle
    public let info: ReaderInfo

    init(context: LibfprintContext, device: DeviceHandle, info: ReaderInfo) {
        self.context = context
        self.handle = device
        self.info = info
    }

    public func enroll(
        _ finger: Finger, username: String, timeout: Duration
    ) -> AsyncThrowingStream<EnrollEvent, any Error> {
        EnrollEvent.stream { [self] events in
            try await runEnroll(finger, username: username, timeout: timeout, events: events)
        }
    }

    public func verify(_ print: EnrolledPrint, timeout: Duration, fingerRead: @escaping @Sendable () -> Void)
        async throws -> ScanResult
    {
        let device = handle.device
        let identity = info.identity
        return try await context.perform(driver: info.driver, timeout: timeout) { _, cancellable in
            let fpPrint = try PrintTemplate.load(print, for: device.pointer, reader: identity)
            defer { libfprint.g_object_unref(UnsafeMutableRawPointer(fpPrint)) }
            let report = FingerReadReport(fingerRead)
            return try Self.withOpenDevice(device.pointer, cancellable) { device in
                var matched: gboolean = 0
                do throws(GLibError) {
                    try withGError { error in
                        withExtendedLifetime(report) {
                            _ = libfprint.fp_device_verify_sync(
                                device, fpPrint, cancellable, FingerReadReport.callback, report.userData, &matched, nil,
                                error)
                        }
                    }
                } catch {
                    if let result = Self.scanOutcome(error) { return result }
                    throw error
                }
                return matched != 0 ? .match(print) : .noMatch
            }
        }
    }

    public func identify(_ prints: [EnrolledPrint], timeout: Duration, fingerRead: @escaping @Sendable () -> Void)
        async throws -> ScanResult
    {
        guard info.canIdentify else {
            throw FingerprintError(
                .notSupported, "The \(info.name) reader cannot identify a finger among several; verify one finger.")
        }
        guard !prints.isEmpty else {
            throw FingerprintError(.printNotFound, "No finger is enrolled on \(info.identity).")
        }
        let device = handle.device
        let identity = info.identity
        return try await context.perform(driver: info.driver, timeout: timeout) { _, cancellable in
            // Unrefs its prints when freed.
            let gallery = libfprint.g_ptr_array_new_with_free_func(libfprint.g_object_unref)!
            defer { libfprint.g_ptr_array_unref(gallery) }
            for print in prints {
                // The array takes over the reference.
                libfprint.g_ptr_array_add(
                    gallery,
                    UnsafeMutableRawPointer(try PrintTemplate.load(print, for: device.pointer, reader: identity)))
            }
            let report = FingerReadReport(fingerRead)
            return try Self.withOpenDevice(device.pointer, cancellable) { device in
                var match: OpaquePointer?
                do throws(GLibError) {
                    try withGError { error in
                        withExtendedLifetime(report) {
                            _ = libfprint.fp_device_identify_sync(
                                device, gallery, cancellable, FingerReadReport.callback, report.userData, &match, nil,
                                error)
                        }
                    }
                } catch {
                    if let result = Self.scanOutcome(error) { return result }
                    throw error
                }
                guard let match else { return .noMatch }
                defer { libfprint.g_object_unref(UnsafeMutableRawPointer(match)) }
                let index = (0..<Int(gallery.pointee.len)).first { index in
                    let candidate = OpaquePointer(fl_ptr_array_index(gallery, guint(index)))
                    return candidate == match || libfprint.fp_print_equal(candidate, match) != 0
                }
                guard let index else { return .noMatch }
                return .match(prints[index])
            }
        }
    }

    /// Opens the device and closes it again: proves this user may claim the reader and that nothing else
    /// holds it, without waiting for a finger (tests and the timing probe).
    package func checkAccess() async throws {
        let device = handle.device
        try await context.perform(driver: info.driver, timeout: nil) { _, cancellable in
            try Self.withOpenDevice(device.pointer, cancellable) { _ in }
        }
    }

    /// A scan that ended in an answer rather than a failure: a retry hint, or libfprint's
    /// DATA_NOT_FOUND, which the caller tells apart with the reader's list.
    private static func scanOutcome(_ error: GLibError) -> ScanResult? {
        if error.domain == .retry {
            return .retry(LibfprintErrorMapping.retryReason(code: error.code))
        }
        if error.domain == .device && error.code == DeviceErrorCode.dataNotFound.rawValue {
            return .notInReaderStorage
        }
        return nil
    }

    /// Opens `device`, runs `body`, and closes the device whatever happened.
    static func withOpenDevice<T>(
        _ device: UnsafeMutablePointer<FpDevice>, _ cancellable: UnsafeMutablePointer<GCancellable>,
        _ body: (UnsafeMutablePointer<FpDevice>) throws -> T
    ) throws -> T {
        if libfprint.fp_device_is_open(device) != 0 {
            // Left open by an operation that could not close it; start clean.
            _ = libfprint.fp_device_close_sync(device, nil, nil)
        }
        try withGError { error in _ = libfprint.fp_device_open_sync(device, cancellable, error) }
        defer {
            // No cancellable: closing must finish even when the operation was cancelled.
            var error: UnsafeMutablePointer<GError>?
            _ = libfprint.fp_device_close_sync(device, nil, &error)
            if let error { libfprint.g_error_free(error) }
        }
        return try body(device)
    }
}
