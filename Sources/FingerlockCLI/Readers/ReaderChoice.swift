import Fingerprint

/// The `--reader` value: `auto`, `simulated`, `DRIVER` or `DRIVER:DEVICE-ID`.
enum ReaderChoice: Equatable, CustomStringConvertible {
    case auto
    case simulated
    case driver(String)
    case exact(ReaderIdentity)

    init(_ text: String) throws(CLIError) {
        switch text {
        case "", "auto": self = .auto
        case SimulatedReaderIdentity.driver, SimulatedReaderIdentity.identity.description: self = .simulated
        default:
            if let identity = ReaderIdentity(text) {
                self = .exact(identity)
            } else if text.contains(":") {
                throw CLIError(.usage, "--reader \(text): expected auto, simulated, DRIVER or DRIVER:DEVICE-ID.")
            } else if let hint = Suggestion.didYouMean(text, among: Self.keywords) {
                // No libfprint driver is a typo away from these words, so this is never a real driver.
                throw CLIError(.usage, "--reader \(text): \(hint)")
            } else {
                self = .driver(text)
            }
        }
    }

    /// The choices that are words rather than drivers.
    static let keywords = ["auto", SimulatedReaderIdentity.driver]

    /// What `--reader` completes to: the words, then every driver the installed libfprint supports.
    /// Run only when a shell asks (a custom completion), so no command pays for reading the hwdb.
    static func completions(hwdbPath: String = LibfprintHwdb.defaultPath) -> [String] {
        let drivers = (try? LibfprintHwdb(contentsOfFile: hwdbPath)).map { Set($0.supported.values).sorted() } ?? []
        return keywords + drivers
    }

    var description: String {
        switch self {
        case .auto: "auto"
        case .simulated: "simulated"
        case .driver(let driver): driver
        case .exact(let identity): identity.description
        }
    }
}
