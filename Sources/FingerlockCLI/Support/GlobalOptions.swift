import ArgumentParser
import Foundation

/// Options every command accepts.
struct GlobalOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Which reader: auto, simulated, DRIVER or DRIVER:DEVICE-ID (env FINGERLOCK_READER).",
            valueName: "reader"))
    var reader: String?

    @Option(
        name: .customLong("data-dir"),
        help: ArgumentHelp(
            "Where fingerlock keeps its data (env FINGERLOCK_DATA_DIR; default $XDG_DATA_HOME/fingerlock).",
            valueName: "dir"))
    var dataDir: String?

    /// The options as plain values.
    var settings: GlobalSettings { GlobalSettings(reader: reader, dataDir: dataDir) }

    func dataDirectory(_ environment: [String: String]) throws(CLIError) -> String {
        try settings.dataDirectory(environment)
    }
}

/// The global options as plain values, however they were parsed.
struct GlobalSettings: Equatable, Sendable {
    /// `--reader`, when given.
    var reader: String?
    /// `--data-dir`, when given.
    var dataDir: String?

    func dataDirectory(_ environment: [String: String]) throws(CLIError) -> String {
        if let dir = dataDir ?? environment["FINGERLOCK_DATA_DIR"], !dir.isEmpty { return dir }
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") { return xdg + "/fingerlock" }
        guard let home = environment["HOME"], !home.isEmpty else {
            throw CLIError(.usage, "Cannot find a data directory: set HOME, XDG_DATA_HOME or --data-dir.")
        }
        return home + "/.local/share/fingerlock"
    }
}
