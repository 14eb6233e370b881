import ArgumentParser
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
        let infos = try await resolver.listedReaders().map(\.info)
        let console = dependencies.console
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

    /// The stage count, with what it is worth before the reader is opened.
    static func stages(_ info: ReaderInfo) -> String {
        var notes: [String] = []
        if info.enrollStagesAreMaximum { notes.append("at most; the reader may finish earlier") }
        if info.enrollStagesKnownAtOpen { notes.append("the driver sets the real count when the reader opens") }
        return notes.isEmpty ? "\(info.enrollStages)" : "\(info.enrollStages) (\(notes.joined(separator: "; ")))"
    }
}
