import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

/// `notes import` where the process matters: the binary under an address-space limit (reads are
/// bounded), gpg asking for a passphrase on the terminal fingerlock runs in, stdin shared with the
/// passcode. The formats themselves: NotesImportTests, in process.
@Suite(.timed, .timeLimit(.minutes(3))) struct NotesImportEndToEndTests: ImportSuite {
    let sources: ImportSources

    init() throws { sources = try ImportSources() }

    func runner(_ extra: [String: String]) -> BinaryRunner { BinaryRunner(extraEnvironment: extra) }

    @Test func jsonFromStdinCannotShareItWithThePasscode() async throws {
        let runner = try await vault()
        let shared = try await runner.run(
            ["notes", "import", "--format", "fingerlock-json", "--passcode-stdin"], stdin: "[]\n")
        #expect(shared.status == 64)
        #expect(shared.stderr.contains("--passcode-fd"))
    }
}
