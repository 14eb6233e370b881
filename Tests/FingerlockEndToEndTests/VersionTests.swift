import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

@testable import FingerlockCLI

/// `--version` and `doctor` show the one version written in `FingerlockVersion`; the bare `--help`.
@Suite(.timed, .timeLimit(.minutes(2))) struct VersionTests {
    let runner = BinaryRunner(extraEnvironment: ["FINGERLOCK_READER": "simulated"])

    @Test func versionFlagPrintsNameAndVersion() async throws {
        let result = try await runner.run(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout == "fingerlock \(FingerlockVersion.current)\n")
        #expect(result.stderr.isEmpty)
        #expect(FingerlockVersion.current.split(separator: ".").count == 3)
    }

    @Test("--version after a command prints the same (ArgumentParser offers it on every command)")
    func versionAfterACommand() async throws {
        for arguments in [["notes", "--version"], ["notes", "add", "--version"], ["--reader", "simulated", "--version"]] {
            let result = try await runner.run(arguments)
            #expect(result.status == 0, "\(arguments)")
            #expect(result.stdout == "fingerlock \(FingerlockVersion.current)\n", "\(arguments)")
        }
    }

    @Test("the bare --help and -h (answered before ArgumentParser parses) print what its help command prints")
    func bareHelpMatchesArgumentParser() async throws {
        let reference = try await runner.run(["help"])
        #expect(reference.status == 0)
        #expect(reference.stdout.contains("USAGE: fingerlock"))
        for arguments in [["--help"], ["-h"], ["--reader", "simulated", "--help"]] {
            let result = try await runner.run(arguments)
            #expect(result.status == 0, "\(arguments)")
            #expect(result.stdout == reference.stdout, "\(arguments)")
            #expect(result.stderr.isEmpty, "\(arguments)")
        }
    }

    @Test func doctorShowsTheVersionFirst() async throws {
        let text = try await runner.run(["doctor"])
        let first = try #require(text.stdout.split(separator: "\n").first)
        #expect(first == "[ok]      fingerlock: fingerlock \(FingerlockVersion.current).")

        let json = try await runner.run(["doctor", "--json"])
        let findings = try #require(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        let version = try #require(findings.first)
        #expect(version["check"] as? String == "fingerlock")
        #expect(version["status"] as? String == "ok")
        #expect(version["message"] as? String == "fingerlock \(FingerlockVersion.current).")
        #expect(findings.filter { $0["check"] as? String == "fingerlock" }.count == 1)
    }
}
