import Foundation

/// What the `notes import` tests at both levels share (in process: the formats; end to end: the
/// memory limits and gpg's terminal): a scratch directory for the sources they import, the programs
/// that make those sources (gpg, pass), and the vault read back as JSON.
public struct ImportSources: Sendable {
    /// The scratch directory (removed by nobody: it is under the system's temporary directory).
    public let path: String

    public init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("fl-import-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// Writes `text` to `name` (folders made as needed) in the scratch directory; the file's path.
    public func write(_ text: String, to name: String) throws -> String {
        let file = path + "/" + name
        try FileManager.default.createDirectory(
            atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        return file
    }

    /// Runs a program that prepares a source (`gpg`, `pass`) to its end; throws with what it said on
    /// stderr when it fails.
    public func helper(_ arguments: [String], environment: [String: String], stdin: String = "") async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.environment = environment
        let input = Pipe()
        let errors = path + "/helper-\(UUID().uuidString).err"
        _ = FileManager.default.createFile(atPath: errors, contents: nil)
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
        try process.run()
        input.fileHandleForWriting.write(Data(stdin.utf8))
        try input.fileHandleForWriting.close()
        while process.isRunning { try await Task.sleep(for: .milliseconds(10)) }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let stderr = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
            throw HelperFailure(description: "\(arguments) exited \(process.terminationStatus): \(stderr)")
        }
    }

    public struct HelperFailure: Error, CustomStringConvertible {
        public let description: String
    }
}

/// A way to run `fingerlock`: in this process (`InProcessCLI`) or as the built binary
/// (`BinaryRunner`), so helpers serve suites at both levels.
public protocol CommandRunning: Sendable {
    func run(_ arguments: [String], environment: [String: String], stdin: String, timeout: Duration) async throws -> CommandResult
    /// A vault with the runner's passcode (a vault fixture end to end); the recovery key.
    @discardableResult func setPasscode() async throws -> String
    /// `enroll FINGER` with the passcode, the simulated reader touched as `touches` says.
    func enroll(_ finger: String, touches: String) async throws -> CommandResult
}

extension CommandRunning {
    /// `notes list --json`'s rows; throws when the command failed.
    public func listedNotes(environment: [String: String]) async throws -> [[String: Any]] {
        let listed = try await run(["notes", "list", "--json"], environment: environment, stdin: "", timeout: .seconds(60))
        guard listed.status == 0, let rows = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]] else {
            throw ImportSources.HelperFailure(description: "notes list exited \(listed.status): \(listed.stderr)")
        }
        return rows
    }

    /// `export --format json`'s notes, every field as text (tags joined), so two exports compare
    /// field by field; throws when the command failed.
    public func exportedNotes(environment: [String: String]) async throws -> [[String: String]] {
        let exported = try await run(
            ["export", "--format", "json", "--yes-plaintext"], environment: environment, stdin: "", timeout: .seconds(60))
        guard exported.status == 0, let notes = try JSONSerialization.jsonObject(with: Data(exported.stdout.utf8)) as? [[String: Any]] else {
            throw ImportSources.HelperFailure(description: "export exited \(exported.status): \(exported.stderr)")
        }
        return notes.map { note in
            note.mapValues { value in (value as? [String]).map { $0.joined(separator: "\u{1F}") } ?? "\(value)" }
        }
    }
}

extension InProcessCLI: CommandRunning {
    @discardableResult
    public func setPasscode() async throws -> String { try await setPasscode(Self.passcode) }
}

/// A suite of `notes import` tests, at either level: its runner's type is the level, the rest is
/// shared (a vault to import into, the sources, the vault read back).
public protocol ImportSuite: Sendable {
    associatedtype Runner: CommandRunning
    var sources: ImportSources { get }
    /// A runner on the simulated reader, with `extra` in its environment.
    func runner(_ extra: [String: String]) -> Runner
}

extension ImportSuite {
    /// One touch of the right thumb, the finger `vault()` enrolls.
    public var touch: [String: String] { ["FINGERLOCK_SIMULATED_TOUCHES": "right-thumb"] }
    public var scratch: String { sources.path }

    /// A vault with a passcode and an enrolled right thumb, so a touch unlocks it.
    public func vault(_ extra: [String: String] = [:]) async throws -> Runner {
        let made = runner(["FINGERLOCK_READER": "simulated"].merging(extra) { $1 })
        try await made.setPasscode()
        let enrolled = try await made.enroll("right-thumb", touches: "right-thumb*5")
        guard enrolled.status == 0 else { throw ImportSources.HelperFailure(description: "enroll: \(enrolled.stderr)") }
        return made
    }

    public func list(_ runner: Runner) async throws -> [[String: Any]] { try await runner.listedNotes(environment: touch) }
    public func export(_ runner: Runner) async throws -> [[String: String]] { try await runner.exportedNotes(environment: touch) }
    public func write(_ text: String, to name: String) throws -> String { try sources.write(text, to: name) }

    public func helper(_ arguments: [String], environment: [String: String], stdin: String = "") async throws {
        try await sources.helper(arguments, environment: environment, stdin: stdin)
    }
}
