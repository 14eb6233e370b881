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
    /// Run only when a shell asks (a custom completion); a command reads the hwdb only when --reader names a driver (`validate`).
    static func completions(hwdbPath: String = LibfprintHwdb.defaultPath) -> [String] {
        let drivers = (try? LibfprintHwdb(contentsOfFile: hwdbPath)).map { Set($0.supported.values).sorted() } ?? []
        return keywords + drivers
    }

    /// libfprint's drivers that its hwdb (USB ids only) does not name: the SPI reader and the
    /// virtual ones its tests and ours use. libfprint offers no list of its drivers, only of the
    /// devices present.
    static let driversOutsideHwdb: Set<String> = ["elanspi", "virtual_image", "virtual_device", "virtual_device_storage"]

    /// `--reader TEXT` as every command checks it, before anything else: its form, a keyword's typo,
    /// and a driver the installed libfprint does not have (`--reader foo`). Where the hwdb cannot be
    /// read, a driver is not judged.
    static func validate(_ text: String, hwdbPath: String = LibfprintHwdb.defaultPath) throws(CLIError) {
        let driver: String
        switch try ReaderChoice(parsing: text) {
        case .auto, .simulated, .fprintd: return
        case .driver(let name): driver = name
        case .exact(let identity): driver = identity.driver
        }
        guard !keywords.contains(driver), !driversOutsideHwdb.contains(driver),
            let hwdb = try? LibfprintHwdb(contentsOfFile: hwdbPath)
        else { return }
        let drivers = Set(hwdb.supported.values).union(driversOutsideHwdb)
        guard !drivers.contains(driver) else { return }
        let said = "--reader \(TerminalSafeText.line(text)): libfprint has no driver \"\(TerminalSafeText.line(driver))\""
        if let hint = Suggestion.didYouMean(driver, among: drivers.sorted()) { throw CLIError(.usage, "\(said); \(hint)") }
        throw CLIError(.usage, "\(said): `fingerlock readers` lists the connected readers, and TAB after --reader completes the drivers.")
    }
}
