import ArgumentParser
import FingerlockProtocol
import Foundation
import SafeFiles

/// Options every command accepts.
struct GlobalOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Which reader: auto, simulated, fprintd (the desktop's fingers), DRIVER or DRIVER:DEVICE-ID (env FINGERLOCK_READER).",
            valueName: "reader"),
        completion: .custom { _, _, prefix in
            // bash adds these as they are: only plain words (every driver name is one).
            ReaderChoice.completions().filter { choice in
                choice.hasPrefix(ShellWord.dequoted(prefix)) && choice.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "_-".contains($0)) }
            }
        })
    var reader: String?

    @Option(
        name: .customLong("data-dir"),
        help: ArgumentHelp(
            "Where fingerlock keeps its data (env FINGERLOCK_DATA_DIR; default $XDG_DATA_HOME/fingerlock).",
            valueName: "dir"),
        completion: .directory)
    var dataDir: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "fingerlockd's socket, for system mode (env FINGERLOCK_SOCKET; default /run/fingerlock/socket).",
            valueName: "path"),
        completion: .file())
    var socket: String?

    /// `--reader foo` is refused by every command, also one that opens no reader.
    func validate() throws {
        if let reader { try ReaderChoice.validate(reader) }
    }

    /// The options as plain values.
    var settings: GlobalSettings { GlobalSettings(reader: reader, dataDir: dataDir, socket: socket) }

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
    /// `--socket`, when given.
    var socket: String? = nil

    /// Where fingerlockd listens: `--socket`, else `FINGERLOCK_SOCKET`, else the default.
    func socketPath(_ environment: [String: String]) -> String {
        if let socket, !socket.isEmpty { return socket }
        if let socket = environment["FINGERLOCK_SOCKET"], !socket.isEmpty { return socket }
        return ServiceInterface.defaultSocketPath
    }

    /// The data directory's real path, once every directory leading to it is found safe (see
    /// `PrivateDirectory.resolve`): the vault's own checks then look at what is really used.
    func dataDirectory(_ environment: [String: String]) throws(CLIError) -> String {
        let path = try configuredDataDirectory(environment)
        do {
            return try PrivateDirectory.resolve(path)
        } catch {
            throw CLIError(.dataError, error.message)
        }
    }

    /// The data directory as configured, before any check.
    func configuredDataDirectory(_ environment: [String: String]) throws(CLIError) -> String {
        if let dir = dataDir ?? environment["FINGERLOCK_DATA_DIR"], !dir.isEmpty { return dir }
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") { return xdg + "/fingerlock" }
        guard let home = environment["HOME"], !home.isEmpty else {
            throw CLIError(.usage, "Cannot find a data directory: set HOME, XDG_DATA_HOME or --data-dir.")
        }
        return home + "/.local/share/fingerlock"
    }
}
