internal import CFprint

/// A `GError` copied into Swift: its domain, code and message.
///
/// Error mapping works on this value so that it can be tested with synthetic codes, without libfprint.
struct GLibError: Error, Equatable, Sendable {
    /// The error domains fingerlock tells apart.
    enum Domain: Equatable, Sendable {
        /// libfprint's `FP_DEVICE_ERROR`.
        case device
        /// libfprint's `FP_DEVICE_RETRY`.
        case retry
        /// GIO's `G_IO_ERROR`.
        case io
        /// GUsb's `G_USB_DEVICE_ERROR` (quark `g-usb-device-error-quark`).
        case usb
        /// Any other domain, by its quark's string.
        case other(String)
    }

    var domain: Domain
    var code: Int
    var message: String

    init(domain: Domain, code: Int, message: String) {
        self.domain = domain
        self.code = code
        self.message = message
    }

    /// Copies and frees `error` (which must be non-nil). On the libfprint thread.
    static func consume(_ error: UnsafeMutablePointer<GError>) -> GLibError {
        let quark = error.pointee.domain
        let domain: Domain =
            switch quark {
            case fp_device_error_quark(): .device
            case fp_device_retry_quark(): .retry
            case g_io_error_quark(): .io
            // GUsb may not be loaded (no USB driver); then its quark does not exist and this is 0.
            case g_quark_try_string("g-usb-device-error-quark") where quark != 0: .usb
            default: .other(g_quark_to_string(quark).map { String(cString: $0) } ?? "unknown")
            }
        let message = error.pointee.message.map { String(cString: $0) } ?? ""
        let copy = GLibError(domain: domain, code: Int(error.pointee.code), message: message)
        g_error_free(error)
        return copy
    }
}

/// Runs a C call taking a `GError **` and turns a set error into a thrown ``GLibError``.
func withGError<T>(_ body: (UnsafeMutablePointer<UnsafeMutablePointer<GError>?>) -> T) throws(GLibError) -> T {
    var error: UnsafeMutablePointer<GError>?
    let result = body(&error)
    if let error { throw GLibError.consume(error) }
    return result
}
