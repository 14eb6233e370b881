import ArgumentParser
import Auth
import Fingerprint
import Foundation

struct FingersCommand: FingerlockCommand {
    static let configuration = CommandConfiguration(
        commandName: "fingers",
        abstract: "List the enrolled fingers, per reader (the vault key: cached, else the passcode).")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var passcode: PasscodeOptions
    @Flag(name: .long, help: "Print a JSON array of {reader, finger, enrolled}.") var json = false

    var jsonOutput: Bool { json }

    struct Entry: Encodable {
        var reader: String
        var finger: String
        /// null for fprintd's fingers: fprintd does not say when they were enrolled.
        var enrolled: Date?

        enum CodingKeys: String, CodingKey { case reader, finger, enrolled }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(reader, forKey: .reader)
            try container.encode(finger, forKey: .finger)
            try container.encode(enrolled, forKey: .enrolled)
        }
    }

    func run(with dependencies: CLIDependencies) async throws {
        let session = try await AuthSession(global: global, passcode: passcode, dependencies: dependencies, needsReader: false, json: json)
        let prints = try await Enrollment(session.environment).enrolledFingers()
        let console = dependencies.console
        if json {
            try console.printJSON(prints.map { Entry(reader: $0.reader.description, finger: $0.finger.rawValue, enrolled: $0.enrolled) })
            return
        }
        guard !prints.isEmpty else {
            console.print("No finger is enrolled. Run `fingerlock enroll` to add one.")
            return
        }
        for (reader, group) in Dictionary(grouping: prints, by: \.reader).sorted(by: { $0.key < $1.key }) {
            console.print(console.bold(reader.description))
            for print in group {
                let when = print.enrolled.map { "enrolled \(UTCDay.string($0))" } ?? "kept by fprintd"
                console.print("  \(print.finger)  \(console.dim(when))")
            }
        }
    }
}
