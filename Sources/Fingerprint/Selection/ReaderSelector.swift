/// Which reader to use: `auto`, `simulated`, `fprintd`, `DRIVER` or `DRIVER:DEVICE-ID` — the value of the CLI's
/// `--reader` and of `fingerlockd --reader` (and of `FINGERLOCK_READER` in either's environment).
public enum ReaderSelector: Equatable, Sendable, CustomStringConvertible {
    case auto
    case simulated
    /// fprintd's reader and the fingers it keeps (the desktop's), never opened by fingerlock itself.
    case fprintd
    case driver(String)
    case exact(ReaderIdentity)

    /// Nil for text with a colon that is not a `DRIVER:DEVICE-ID`; any other word is a driver.
    public init?(_ text: String) {
        switch text {
        case "", "auto": self = .auto
        case SimulatedReaderIdentity.driver, SimulatedReaderIdentity.identity.description: self = .simulated
        case Self.fprintdKeyword: self = .fprintd
        default:
            if let identity = ReaderIdentity(text) {
                self = .exact(identity)
            } else if text.contains(":") {
                return nil
            } else {
                self = .driver(text)
            }
        }
    }

    /// The choices that are words rather than drivers.
    public static let keywords = ["auto", SimulatedReaderIdentity.driver, fprintdKeyword]

    /// fprintd's readers go by this driver name (`fprintd:DEVICE-NAME`).
    public static let fprintdKeyword = "fprintd"

    /// Whether prints of `identity` fall under this choice (`auto` covers every reader).
    public func covers(_ identity: ReaderIdentity) -> Bool {
        switch self {
        case .auto: true
        case .simulated: identity.isSimulated
        case .fprintd: identity.driver == Self.fprintdKeyword
        case .driver(let driver): identity.driver == driver
        case .exact(let exact): identity == exact
        }
    }

    /// Whether a connected reader is one to use: as `covers`, except that `auto` never picks the
    /// simulated one.
    public func picks(_ identity: ReaderIdentity) -> Bool {
        self == .auto ? !identity.isSimulated : covers(identity)
    }

    public var description: String {
        switch self {
        case .auto: "auto"
        case .simulated: "simulated"
        case .fprintd: Self.fprintdKeyword
        case .driver(let driver): driver
        case .exact(let identity): identity.description
        }
    }
}
