/// Why fingerlock cancelled a libfprint operation.
enum CancelReason: Equatable, Sendable {
    /// The Swift task was cancelled.
    case task
    /// No finger arrived within the scan timeout.
    case timeout(Duration)
}

/// libfprint's `FpDeviceError` codes (fp-device.h).
enum DeviceErrorCode: Int, CaseIterable, Sendable {
    case general = 0
    case notSupported, notOpen, alreadyOpen, busy, proto, dataInvalid, dataNotFound, dataFull,
        dataDuplicate
    case removed = 0x100
    case tooHot
}

/// GUsb's `GUsbDeviceError` codes (gusb-device.h; `busy` exists from GUsb 0.3.x on).
enum USBErrorCode: Int, CaseIterable, Sendable {
    case `internal` = 0
    case io, timedOut, notSupported, noDevice, notOpen, alreadyOpen, cancelled, failed,
        permissionDenied, busy
}

/// The GIO codes libfprint uses (gioenums.h).
enum IOErrorCode: Int, Sendable {
    case notFound = 1
    case permissionDenied = 14
    case cancelled = 19
    case timedOut = 24
    case busy = 26
}

enum LibfprintErrorMapping {
    static let grantAccessHint =
        "install fingerlock's udev rules (make install) or add your user to plugdev, then replug the reader"

    static let permissionDenied = FingerprintError(
        .permissionDenied, "This user may not open the fingerprint reader: \(grantAccessHint).")
    static let busy = FingerprintError(
        .busy, "The fingerprint reader is busy: another program such as fprintd may be using the reader.")
    static let unplugged = FingerprintError(
        .unplugged, "The fingerprint reader was unplugged; reconnect it and try again.")
    /// The reader stopped answering (a USB transfer or a driver's own wait timed out): a failing
    /// device, not a finger that did not come.
    static let deviceTimedOut = FingerprintError(
        .deviceError, "The fingerprint reader stopped answering (a transfer timed out); unplug and replug it, then try again.")

    /// Turns a libfprint, GIO or GUsb error into the error fingerlock reports: `CancellationError` for a
    /// cancelled task, ``FingerprintError`` (with a sentence for the user) for everything else.
    /// `driver` names the reader's driver in messages about errors fingerlock cannot explain.
    static func map(_ error: GLibError, cancelledBecause reason: CancelReason? = nil, driver: String = "") -> any Error {
        switch error.domain {
        case .device:
            return deviceError(error, driver: driver)
        case .io:
            return ioError(error, reason: reason)
        case .usb:
            return usbError(error, reason: reason)
        case .retry:
            return FingerprintError(.deviceError, retryReason(code: error.code).hint)
        case .other:
            return fromMessage(error)
                ?? FingerprintError(.deviceError, "The \(readerName(driver)) failed: \(detail(error)).")
        case .invalid:
            return FingerprintError(
                .deviceError,
                "The \(readerName(driver)) failed and libfprint returned an unreadable error;"
                    + " unplug and replug the reader and try again, and if it keeps failing, update libfprint"
                    + " (newer versions fix this for some drivers).")
        }
    }

    /// "fingerprint reader (driver x)", or just "fingerprint reader".
    static func readerName(_ driver: String) -> String {
        driver.isEmpty ? "fingerprint reader" : "fingerprint reader (driver \(driver))"
    }

    /// The retry hint for an `FpDeviceRetry` code; unknown codes are a general retry.
    static func retryReason(code: Int) -> RetryReason {
        switch code {
        case 1: .tooShort
        case 2: .centerFinger
        case 3: .removeFinger
        default: .general
        }
    }

    private static func deviceError(_ error: GLibError, driver: String) -> FingerprintError {
        guard let code = DeviceErrorCode(rawValue: error.code) else {
            return FingerprintError(.deviceError, "The \(readerName(driver)) failed: \(detail(error)).")
        }
        switch code {
        case .general:
            return fromMessage(error)
                ?? FingerprintError(
                    .deviceError, "The fingerprint reader reported an error; try again, or unplug and replug it.")
        case .notSupported:
            return FingerprintError(.notSupported, "The fingerprint reader does not support this operation.")
        case .notOpen:
            return FingerprintError(.deviceError, "The fingerprint reader was not open; try again.")
        case .alreadyOpen:
            return FingerprintError(
                .busy, "The fingerprint reader is already open by another operation; wait for it to finish.")
        case .busy:
            return busy
        case .proto:
            return FingerprintError(
                .deviceError, "The fingerprint reader answered with something unexpected; unplug and replug it.")
        case .dataInvalid:
            return FingerprintError(
                .invalidPrint, "The fingerprint reader rejected the enrolled print; enroll the finger again.")
        case .dataNotFound:
            return FingerprintError(
                .printNotFound, "The print is not stored on the fingerprint reader; enroll the finger again.")
        case .dataFull:
            return FingerprintError(
                .storageFull, "The fingerprint reader's storage is full; forget a finger stored on it first.")
        case .dataDuplicate:
            return FingerprintError(
                .duplicate, "This finger is already enrolled on the fingerprint reader; forget it first.")
        case .removed:
            return unplugged
        case .tooHot:
            return FingerprintError(
                .tooHot, "The fingerprint reader is too hot; let it cool down for a few minutes and try again.")
        }
    }

    private static func ioError(_ error: GLibError, reason: CancelReason?) -> any Error {
        switch IOErrorCode(rawValue: error.code) {
        case .cancelled:
            return cancelled(reason)
        case .timedOut:
            return timedOut(reason)
        case .permissionDenied:
            return permissionDenied
        case .busy:
            return busy
        case .notFound:
            return FingerprintError.noReader("The fingerprint reader is no longer there; reconnect it and try again.")
        case nil:
            return fromMessage(error)
                ?? FingerprintError(.deviceError, "The fingerprint reader failed: \(detail(error)).")
        }
    }

    private static func usbError(_ error: GLibError, reason: CancelReason?) -> any Error {
        guard let code = USBErrorCode(rawValue: error.code) else {
            return fromMessage(error)
                ?? FingerprintError(
                    .deviceError, "USB communication with the fingerprint reader failed: \(detail(error)).")
        }
        switch code {
        case .permissionDenied:
            return permissionDenied
        case .busy:
            return busy
        case .cancelled:
            return cancelled(reason)
        case .timedOut:
            return timedOut(reason)
        case .notSupported:
            return FingerprintError(.notSupported, "The fingerprint reader does not support this USB request.")
        case .noDevice:
            // Older GUsb reports libusb's BUSY as NO_DEVICE; the libusb text tells them apart.
            return fromMessage(error) ?? unplugged
        case .alreadyOpen:
            return busy
        case .internal, .io, .notOpen, .failed:
            return fromMessage(error)
                ?? FingerprintError(
                    .deviceError,
                    "USB communication with the fingerprint reader failed; unplug and replug it (\(detail(error))).")
        }
    }

    /// A timeout is the user's only when fingerlock's own scan timer ended the wait; any other is the device's.
    private static func timedOut(_ reason: CancelReason?) -> FingerprintError {
        if case .timeout(let duration) = reason { return FingerprintError.timedOut(after: duration.seconds) }
        return deviceTimedOut
    }

    private static func cancelled(_ reason: CancelReason?) -> any Error {
        if case .timeout(let duration) = reason {
            return FingerprintError.timedOut(after: duration.seconds)
        }
        return CancellationError()
    }

    /// Recognises libusb's and errno's wording (`LIBUSB_ERROR_ACCESS`, "Access denied", "[-3]", EBUSY …)
    /// in messages of generic codes, where the code alone does not say what happened.
    static func fromMessage(_ error: GLibError) -> FingerprintError? {
        let text = error.message.lowercased()
        func has(_ needles: String...) -> Bool { needles.contains { text.contains($0) } }
        if has("libusb_error_access", "access denied", "permission denied", "insufficient permissions", "[-3]") {
            return permissionDenied
        }
        if has("libusb_error_busy", "resource busy", "[-6]") {
            return busy
        }
        if has("libusb_error_no_device", "no such device", "[-4]", "disconnected") {
            return unplugged
        }
        return nil
    }

    private static func detail(_ error: GLibError) -> String {
        let message = error.message.isEmpty ? "no details" : error.message
        return "\(message) (\(error.domainName) \(error.code))"
    }
}

extension Duration {
    /// The duration in seconds, for messages.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

extension GLibError {
    /// The domain as GLib spells it, for messages.
    var domainName: String {
        switch domain {
        case .device: "FpDeviceError"
        case .retry: "FpDeviceRetry"
        case .io: "GIOError"
        case .usb: "GUsbDeviceError"
        case .other(let name): name
        case .invalid: "invalid"
        }
    }
}
