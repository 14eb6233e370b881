internal import CFprint

/// A `GError` copied into Swift: its domain name (the quark's string), code and message.
///
/// Error mapping works on this value so that it can be tested with synthetic codes, without libfprint.
struct GLibError: Error, Equatable, Sendable {
    var domain: String
    var code: Int
    var message: String

    init(domain: String, code: Int, message: String) {
        self.domain = domain
        self.code = code
        self.message = message
    }

    /// Copies and frees `error` (which must be non-nil).
    static func consume(_ error: UnsafeMutablePointer<GError>) -> GLibError {
        let domain = g_quark_to_string(error.pointee.domain).map { String(cString: $0) } ?? "unknown"
        let message = error.pointee.message.map { String(cString: $0) } ?? ""
        let copy = GLibError(domain: domain, code: Int(error.pointee.code), message: message)
        g_error_free(error)
        return copy
    }

    /// Domain names as libfprint, GIO and GUsb register their quarks.
    enum Domain {
        static let device = "fp-device-error-quark"
        static let retry = "fp-device-retry-quark"
        static let io = "g-io-error-quark"
        static let usb = "g-usb-device-error-quark"
    }
}

/// Runs a C call taking a `GError **` and turns a set error into a thrown ``GLibError``.
func withGError<T>(_ body: (UnsafeMutablePointer<UnsafeMutablePointer<GError>?>) -> T) throws(GLibError) -> T {
    var error: UnsafeMutablePointer<GError>?
    let result = body(&error)
    if let error { throw GLibError.consume(error) }
    return result
}
