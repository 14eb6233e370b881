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
        /// Any other domain GLib knows, by its quark's string.
        case other(String)
        /// Not a `GError` GLib handed out: its domain is no registered quark, or a domain fingerlock
        /// knows carries a code that domain does not define. libfprint 1.94.5's fpcmoc returns such
        /// errors (freed or foreign ones), so nothing behind them is trusted.
        case invalid
    }

    var domain: Domain
    var code: Int
    var message: String

    /// Copies and frees `error` (which must be non-nil). On the libfprint thread.
    ///
    /// Only the two integers of the struct are read before the error is known to be GLib's own; an
    /// invalid one (see ``Domain/invalid``) is neither read further (its message pointer may dangle)
    /// nor freed (it may be freed already): leaking a few bytes beats a crash or a double free.
    static func consume(_ error: UnsafeMutablePointer<GError>) -> GLibError {
        let quark = error.pointee.domain
        let code = Int(error.pointee.code)
        // An unregistered quark has no string (GLib checks the index, so any value is safe to ask about).
        guard quark != 0, let name = libfprint.g_quark_to_string(quark) else {
            return GLibError(domain: .invalid, code: code, message: "")
        }
        let domain: Domain =
            switch quark {
            case libfprint.fp_device_error_quark(): .device
            case libfprint.fp_device_retry_quark(): .retry
            case libfprint.g_io_error_quark(): .io
            // GUsb may not be loaded (no USB driver); then its quark does not exist and this is 0.
            case libfprint.g_quark_try_string("g-usb-device-error-quark"): .usb
            default: .other(String(cString: name))
            }
        guard domain.defines(code: code) else {
            return GLibError(domain: .invalid, code: code, message: "")
        }
        let message = error.pointee.message.map { String(cString: $0) } ?? ""
        let copy = GLibError(domain: domain, code: code, message: message)
        libfprint.g_error_free(error)
        return copy
    }
}

extension GLibError.Domain {
    /// Whether `code` is one this domain defines (any code, for domains fingerlock does not know).
    func defines(code: Int) -> Bool {
        switch self {
        case .device: DeviceErrorCode(rawValue: code) != nil
        case .retry: (0...3).contains(code)
        // Newer GUsb adds codes after `busy`; they are mapped generically.
        case .usb: (0...31).contains(code)
        // GIO has dozens of codes and grows; libfprint uses a handful, the rest are mapped generically.
        case .io: (0...64).contains(code)
        case .other: true
        case .invalid: false
        }
    }
}

/// Runs a C call taking a `GError **` and turns a set error into a thrown ``GLibError``.
func withGError<T>(_ body: (UnsafeMutablePointer<UnsafeMutablePointer<GError>?>) -> T) throws(GLibError) -> T {
    var error: UnsafeMutablePointer<GError>?
    let result = body(&error)
    if let error { throw GLibError.consume(error) }
    return result
}
