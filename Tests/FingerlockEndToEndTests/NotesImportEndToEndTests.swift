import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

/// `notes import` where the process matters: the binary under an address-space limit (reads are
/// bounded), gpg asking for a passphrase on the terminal fingerlock runs in, stdin shared with the
/// passcode. The formats themselves: NotesImportTests, in process.
@Suite(.timed, .timeLimit(.minutes(3))) struct NotesImportEndToEndTests {
    let touch = ["FINGERLOCK_SIMULATED_TOUCHES": "right-thumb"]
    let sources: ImportSources
    var scratch: String { sources.path }

    init() throws { sources = try ImportSources() }

    /// A vault with a passcode and an enrolled right thumb, so a touch unlocks it.
    func vault(_ extra: [String: String] = [:]) async throws -> BinaryRunner {
        let runner = BinaryRunner(extraEnvironment: ["FINGERLOCK_READER": "simulated"].merging(extra) { $1 })
        try await runner.setPasscode()
        #expect(try await runner.enroll("right-thumb", touches: "right-thumb*5").status == 0)
        return runner
    }

    func list(_ runner: BinaryRunner) async throws -> [[String: Any]] { try await runner.listedNotes(environment: touch) }
    func export(_ runner: BinaryRunner) async throws -> [[String: String]] { try await runner.exportedNotes(environment: touch) }

    func write(_ text: String, to name: String) throws -> String { try sources.write(text, to: name) }

    func helper(_ arguments: [String], environment: [String: String], stdin: String = "") async throws {
        try await sources.helper(arguments, environment: environment, stdin: stdin)
    }

    @Test func jsonFromStdinCannotShareItWithThePasscode() async throws {
        let runner = try await vault()
        let shared = try await runner.run(
            ["notes", "import", "--format", "fingerlock-json", "--passcode-stdin"], stdin: "[]\n")
        #expect(shared.status == 64)
        #expect(shared.stderr.contains("--passcode-fd"))
    }
}
