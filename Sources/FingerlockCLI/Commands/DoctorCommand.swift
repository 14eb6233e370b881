import ArgumentParser
import Auth
import FingerlockServiceClient
import Fingerprint
import Foundation

/// `fingerlock doctor [--json]`: one line per finding with its fix; exit 1 when something blocks
/// fingerprint unlock.
struct DoctorCommand: FingerlockCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract:
            "Check reader access, udev rules, fprintd, the keyring, permissions and fingerlockd; say how to fix each problem.",
        discussion: "Exits 1 when something blocks fingerprint unlock, 0 otherwise. It never asks for the passcode.")

    @OptionGroup var global: GlobalOptions
    @Flag(name: .long, help: "Print a JSON array of {check, status, message, fix}.")
    var json = false

    var jsonOutput: Bool { json }

    func run(with dependencies: CLIDependencies) async throws {
        let dataDirectory = try global.dataDirectory(dependencies.environment)
        let session = try await AuthSession(global: global, passcode: nil, dependencies: dependencies, needsReader: false)
        let environment = session.environment
        var doctorDependencies = DoctorDependencies.system(
            environment: dependencies.environment, dataDirectory: dataDirectory,
            // The readers `fingerlock readers` lists with the same --reader: with `--reader simulated`
            // (a test vault's reader) that is the simulated one, not an error about missing hardware.
            listReaders: { try await ReaderResolver(option: global.reader, dependencies: dependencies).listedReaders().map(\.info) },
            setupStatus: { try VaultStatusReport(environment).inspectSetup() },
            service: DoctorServiceTarget(
                socketPath: global.settings.socketPath(dependencies.environment), vaultMode: { ModeMigration(environment).currentMode },
                vaultStatus: { try VaultStatusReport(environment).serviceStatus() }, systemd: SystemServiceClient.systemdRuns))
        doctorDependencies.tpm = { TPMBindingManagement(environment).report(askTPM: true) }
        doctorDependencies.fprintd = dependencies.fprintd
        let (output, status) = await render(doctorDependencies, color: dependencies.console.useColor)
        dependencies.console.out.write(output)
        if status != 0 { throw DoctorFoundProblems(status: status) }
    }

    /// The whole command without touching the process: the text (or JSON) to print and the exit status.
    func render(_ dependencies: DoctorDependencies, color: Bool = false) async -> (output: String, status: Int32) {
        let report = await Doctor(dependencies).run()
        if json {
            // Encoding plain strings cannot fail; an empty array would still be valid JSON.
            return ((try? report.json()) ?? "[]\n", report.exitStatus)
        }
        return (report.text(color: color), report.exitStatus)
    }
}

/// Doctor already printed its findings: exit with its status and no further message.
struct DoctorFoundProblems: Error {
    let status: Int32
}
