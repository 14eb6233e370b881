import Fingerprint

/// The `--reader` value: `auto`, `simulated`, `fprintd`, `DRIVER` or `DRIVER:DEVICE-ID` (the selector the
/// service's `--reader` takes too), parsed with the CLI's usage errors and typo hints.
typealias ReaderChoice = ReaderSelector

extension ReaderSelector {
    init(parsing text: String) throws(CLIError) {
        if let choice = ReaderSelector(text) {
            if case .driver = choice, let hint = Suggestion.didYouMean(text, among: Self.keywords) {
                // No libfprint driver is a typo away from these words, so this is never a real driver.
                throw CLIError(.usage, "--reader \(text): \(hint)")
            }
            self = choice
        } else {
            throw CLIError(.usage, "--reader \(text): expected auto, simulated, fprintd, DRIVER or DRIVER:DEVICE-ID.")
        }
    }

    /// What `--reader` completes to: the words, then every driver the installed libfprint supports.
    /// Run only when a shell asks (a custom completion), so no command pays for reading the hwdb.
    static func completions(hwdbPath: String = LibfprintHwdb.defaultPath) -> [String] {
        let drivers = (try? LibfprintHwdb(contentsOfFile: hwdbPath)).map { Set($0.supported.values).sorted() } ?? []
        return keywords + drivers
    }
}
