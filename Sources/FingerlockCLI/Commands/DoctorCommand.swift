import ArgumentParser
import Auth
import Fingerprint
import Foundation
import Vault

/// `fingerlock doctor [--json]`: one line per finding with its fix; exit 1 when something blocks
/// fingerprint unlock.
struct DoctorCommand: FingerlockCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check reader access, udev rules, fprintd, the keyring and permissions; say how to fix each problem.",
        discussion: "Exits 1 when something blocks fingerprint unlock, 0 otherwise. It never asks for the passcode.")

    @OptionGroup var global: GlobalOptions
    @Flag(name: .long, help: "Print a JSON array of {check, status, message, fix}.")
    var json = false

    var jsonOutput: Bool { json }

    func run(with dependencies: CLIDependencies) async throws {
        let dataDirectory = try global.dataDirectory(dependencies.environment)
        let keyCache = dependencies.keyCache
        let doctorDependencies = DoctorDependencies.system(
            environment: dependencies.environment, dataDirectory: dataDirectory,
            listReaders: { try await dependencies.hardwareReaders().map(\.info) },
            setupStatus: { try Self.setupStatus(dataDirectory: dataDirectory, keyCache: keyCache) })
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

    /// Whether a passcode is set and, when the key is cached, which fingers are enrolled.
    static func setupStatus(dataDirectory: String, keyCache: any KeyCache) throws -> SetupStatus {
        guard Vault.exists(in: dataDirectory) else { return SetupStatus(passcodeSet: false, enrolledFingers: []) }
        let storeID = try Vault.storeID(in: dataDirectory)
        guard keyCache.unavailableReason() == nil, let key = try? keyCache.load(name: storeID.uuidString),
            let vault = try? Vault.open(in: dataDirectory, using: .masterKey(key))
        else { return SetupStatus(passcodeSet: true, enrolledFingers: [], fingersUnknown: true) }
        defer { vault.close() }
        let prints = try VaultPrintStore(vault: vault).allPrints()
        return SetupStatus(passcodeSet: true, enrolledFingers: prints.map { "\($0.finger) on \($0.reader)" })
    }
}

/// Doctor already printed its findings: exit with its status and no further message.
struct DoctorFoundProblems: Error {
    let status: Int32
}
