/// One line of `fingerlock doctor`: what was checked, how it went, and what to do about it.
public struct DoctorFinding: Codable, Hashable, Sendable {
    public enum Status: String, Codable, Sendable, Comparable {
        /// Nothing to do.
        case ok
        /// Worth knowing, but fingerprint unlock can still work.
        case warning
        /// Fingerprint unlock cannot work until this is fixed.
        case error

        public static func < (lhs: Status, rhs: Status) -> Bool { lhs.rank < rhs.rank }
        private var rank: Int {
            switch self {
            case .ok: 0
            case .warning: 1
            case .error: 2
            }
        }
    }

    /// A short stable name: `fingerlock` (its version), `libfprint`, `readers`, `usb 06cb:00bd`, `udev-rules`, `fprintd`,
    /// `keyring`, `data-directory`, `passcode`, `enrolled`, `service` (fingerlockd), `session`.
    public var check: String
    public var status: Status
    /// One sentence saying what was found.
    public var message: String
    /// One command or sentence that fixes it; nil when there is nothing to fix.
    public var fix: String?

    public init(check: String, status: Status, message: String, fix: String? = nil) {
        self.check = check
        self.status = status
        self.message = message
        self.fix = fix
    }

    enum CodingKeys: String, CodingKey { case check, status, message, fix }

    /// Always writes `fix` (as null when there is none) so every JSON object has the same keys.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(check, forKey: .check)
        try container.encode(status, forKey: .status)
        try container.encode(message, forKey: .message)
        try container.encode(fix, forKey: .fix)
    }

    static func ok(_ check: String, _ message: String) -> DoctorFinding {
        DoctorFinding(check: check, status: .ok, message: message)
    }

    static func warning(_ check: String, _ message: String, fix: String?) -> DoctorFinding {
        DoctorFinding(check: check, status: .warning, message: message, fix: fix)
    }

    static func error(_ check: String, _ message: String, fix: String?) -> DoctorFinding {
        DoctorFinding(check: check, status: .error, message: message, fix: fix)
    }
}
