public import ArgumentParser
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// `fingerlock doctor [--json]`: one line per finding with its fix; exit 1 when something blocks
/// fingerprint unlock.
public struct DoctorCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check reader access, udev rules, fprintd, the keyring and permissions; say how to fix each problem.",
        discussion: "Exits 1 when something blocks fingerprint unlock, 0 otherwise.")

    @Flag(name: .long, help: "Print a JSON array of {check, status, message, fix}.")
    public var json = false

    public init() {}

    /// Runs with the real system. The lead's wiring replaces `listReaders` and `setupStatus` (and the
    /// data directory, for `--data-dir`) by calling ``render(_:)`` with its own dependencies.
    public func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let dependencies = DoctorDependencies.system(
            environment: environment, dataDirectory: Self.defaultDataDirectory(environment),
            listReaders: nil, setupStatus: nil)
        let (output, status) = await render(
            dependencies, color: isatty(STDOUT_FILENO) == 1 && environment["NO_COLOR"] == nil)
        FileHandle.standardOutput.write(Data(output.utf8))
        if status != 0 { throw ExitCode(status) }
    }

    /// The whole command without touching the process: the text (or JSON) to print and the exit status.
    public func render(_ dependencies: DoctorDependencies, color: Bool = false) async -> (output: String, status: Int32)
    {
        let report = await Doctor(dependencies).run()
        if json {
            // Encoding plain strings cannot fail; an empty array would still be valid JSON.
            return ((try? report.json()) ?? "[]\n", report.exitStatus)
        }
        return (report.text(color: color), report.exitStatus)
    }

    /// The CLI contract's default: `FINGERLOCK_DATA_DIR`, else `$XDG_DATA_HOME/fingerlock`, else
    /// `~/.local/share/fingerlock`; nil without HOME.
    static func defaultDataDirectory(_ environment: [String: String]) -> String? {
        if let dir = environment["FINGERLOCK_DATA_DIR"], !dir.isEmpty { return dir }
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") { return xdg + "/fingerlock" }
        guard let home = environment["HOME"], !home.isEmpty else { return nil }
        return home + "/.local/share/fingerlock"
    }
}
