import ArgumentParser
import AuthCore
import Fingerprint

struct ReadersCommand: FingerlockCommand {
    static let configuration = CommandConfiguration(
        commandName: "readers",
        abstract: "List the fingerprint readers: name, driver, device id, scan type, stages, features.")

    @OptionGroup var global: GlobalOptions
    @Flag(name: .long, help: "Print a JSON array.") var json = false

    var jsonOutput: Bool { json }

    func run(with dependencies: CLIDependencies) async throws {
        let resolver = try ReaderResolver(option: global.reader, dependencies: dependencies)
        let console = dependencies.console
        if resolver.choice == .fprintd {
            try await listFprintd(dependencies, console: console)
            return
        }
        let infos = try await resolver.listedReaders().map(\.info)
        if json {
            try console.printJSON(infos)
            return
        }
        guard !infos.isEmpty else {
            console.print("No fingerprint reader found. Connect a supported USB reader, or try --reader simulated.")
            return
        }
        for info in infos {
            console.print("\(console.bold(info.identity.description))  \(info.name)")
            console.print(
                "  scan type: \(info.scanType.rawValue) · enroll stages: \(Self.stages(info)) · features: \(info.features)")
        }
    }

    /// `--reader fprintd`: fprintd's reader (as libfprint's are listed, driver `fprintd`) and the
    /// fingers fprintd keeps for the user.
    private func listFprintd(_ dependencies: CLIDependencies, console: Console) async throws {
        guard let fprintd = dependencies.fprintd else { throw FingerprintError.noReader("fprintd cannot be asked here.") }
        let device = try await fprintd.device()
        let fingers = try await fprintd.enrolledFingers()
        if json {
            try console.printJSON([device.info])
            return
        }
        console.print("\(console.bold(device.info.identity.description))  (fprintd's reader)")
        console.print("  scan type: \(device.scanType.rawValue) · enroll stages: \(device.enrollStages) · kept by fprintd")
        let names =
            fingers.isEmpty
            ? "none (enroll one in your desktop's settings, or `fingerlock enroll --reader fprintd FINGER`)"
            : fingers.map(\.rawValue).joined(separator: ", ")
        console.print("  your fingers: \(names)")
        console.print(
            "  a touch is checked against every finger where the reader identifies, else against the first one only;"
                + " `fingerlock verify` says which matched when fprintd names it")
    }

    /// The stage count, with what it is worth before the reader is opened.
    static func stages(_ info: ReaderInfo) -> String {
        var notes: [String] = []
        if info.enrollStagesAreMaximum { notes.append("at most; the reader may finish earlier") }
        if info.enrollStagesKnownAtOpen { notes.append("the driver sets the real count when the reader opens") }
        return notes.isEmpty ? "\(info.enrollStages)" : "\(info.enrollStages) (\(notes.joined(separator: "; ")))"
    }
}
