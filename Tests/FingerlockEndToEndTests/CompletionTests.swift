import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

@testable import FingerlockCLI

/// Shell completions, from the scripts the built binary writes: values where a value is expected
/// (fingers, settings, --reader, --format), never command names there.
@Suite(.timed, .timeLimit(.minutes(2))) struct CompletionTests {
    let runner = BinaryRunner()

    static let fingers = FingerArgument.names()
    static let keys = ["cache-expiry", "reuse-window", "max-tries", "scan-timeout", "clip-clear", "history-limit", "trash-keep"]

    func script(_ shell: String) async throws -> String {
        let result = try await runner.run(["--generate-completion-script", shell])
        try #require(result.status == 0, "\(result.stderr)")
        return result.stdout
    }

    @Test("every script lists the finger names, setting names and --format values", arguments: ["bash", "zsh", "fish"])
    func staticLists(_ shell: String) async throws {
        let text = try await script(shell)
        // Each shell quotes a list its own way; what matters is that every value is in it.
        let separators: [String] =
            switch shell {
            case "bash": ["'$'\\n''"]
            case "zsh": ["' '"]
            default: [" "]
            }
        for separator in separators {
            #expect(text.contains(Self.fingers.joined(separator: separator)))
            #expect(text.contains((["any"] + Self.fingers).joined(separator: separator)))
            #expect(text.contains(Self.keys.joined(separator: separator)))
            #expect(text.contains(["json", "markdown"].joined(separator: separator)))
        }
        // --reader and `config set`'s value are completed by the binary when the shell asks.
        #expect(text.contains("---completion enroll -- --reader"))
        #expect(text.contains("---completion config set -- positional@1"))
    }

    @Test func readerCompletesToAutoSimulatedAndLibfprintsDrivers() async throws {
        let result = try await runner.run(["---completion", "enroll", "--", "--reader", "3", "0", "fingerlock", "enroll", "--reader", ""])
        #expect(result.status == 0)
        let offered = result.stdout.split(separator: "\n").map(String.init)
        #expect(offered == ReaderChoice.completions())
        #expect(offered.starts(with: ["auto", "simulated"]))
        // libfprint-2-2 is installed here (a build dependency), so its drivers are offered.
        #expect(offered.contains("synaptics"))
    }

    @Test(
        "config set offers values for the setting before it",
        arguments: [
            ("max-tries", (1...10).map(String.init)), ("cache-expiry", ["1h", "4h", "8h", "24h", "48h"]),
            ("reuse-window", ["0s", "30s", "1m", "5m"]), ("nonsense", []),
        ])
    func configValues(_ key: String, _ expected: [String]) async throws {
        let result = try await runner.run(["---completion", "config", "set", "--", "positional@1", "4", "0", "fingerlock", "config", "set", key, ""])
        #expect(result.status == 0)
        #expect(result.stdout.split(separator: "\n").map(String.init) == expected)
    }

    /// What bash offers for a command line whose last word is being completed, with the script
    /// `fingerlock` writes (as bash-completion would load it).
    func bashOffers(_ words: [String]) async throws -> [String] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fl-comp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let scriptFile = directory.appendingPathComponent("fingerlock.bash")
        try await script("bash").write(to: scriptFile, atomically: false, encoding: .utf8)
        let driver = """
            source "$1"; shift
            COMP_WORDS=("$@"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
            COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
            _fingerlock "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", driver, "bash", scriptFile.path, BinaryRunner.binaryPath] + words
        process.environment = runner.environment
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let result = try await runner.finish(process, Collector(output: output, error: error), arguments: words, timeout: .seconds(30))
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.split(separator: "\n").map(String.init)
    }

    @Test func noteTitlesAreOfferedOnlyWhileTheKeyIsCached() async throws {
        let runner = BinaryRunner(extraEnvironment: ["FINGERLOCK_READER": "simulated"])
        try await runner.setPasscode()
        #expect(try await runner.enroll("right-thumb", touches: "right-thumb*5").status == 0)
        for title in ["Gmail", "gitlab", "Bank of Foo", "wifi"] {
            let added = try await runner.run(
                ["notes", "add", "--title", title], environment: ["FINGERLOCK_SIMULATED_TOUCHES": "right-thumb"], stdin: "body\n")
            try #require(added.status == 0, "\(added.stderr)")
        }
        func offered(_ command: String, _ typed: String) async throws -> [String] {
            // No touch scripted: a completion that reached for the reader would wait, then time out.
            let result = try await runner.run(
                ["---completion", "notes", command, "--", "positional@0", "3", String(typed.count), "fingerlock", "notes", command, typed],
                environment: ["FINGERLOCK_SIMULATED_TOUCHES": "timeout"], timeout: .seconds(10))
            #expect(result.status == 0)
            #expect(result.stderr.isEmpty, "\(result.stderr)")
            return result.stdout.split(separator: "\n").map(String.init)
        }
        // The passcode (at enroll) cached the key.
        #expect(try await offered("show", "g") == ["Gmail", "gitlab"].sorted())
        #expect(try await offered("edit", "BANK") == ["Bank of Foo"])
        #expect(try await offered("rm", "") == ["Bank of Foo", "Gmail", "gitlab", "wifi"].sorted())
        #expect(try await runner.run(["lock"]).status == 0)
        #expect(try await offered("show", "g").isEmpty)
        let status = try await runner.run(["status", "--json"])
        let object = try #require(JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
        #expect(object["failedTouches"] as? Int == 0)
        #expect(object["unlocked"] as? Bool == false)
    }

    @Test func bashOffersValuesWhereValuesGoAndCommandsWhereCommandsGo() async throws {
        #expect(try await bashOffers(["en"]) == ["enroll"])
        #expect(try await bashOffers(["notes", "se"]) == ["search"])
        // A global option before the command takes a value: no command names there.
        let reader = try await bashOffers(["--reader", ""])
        #expect(reader.starts(with: ["auto", "simulated"]))
        #expect(!reader.contains("notes"))
        #expect(try await bashOffers(["--reader", "sim"]) == ["simulated"])
        #expect(try await bashOffers(["--reader", "simulated", "ver"]) == ["verify"])
        #expect(try await bashOffers(["enroll", "right-i"]) == ["right-index-finger"])
        #expect(try await bashOffers(["verify", ""]) == ["any"] + Self.fingers)
        #expect(try await bashOffers(["forget", "--reader", "auto", "left-t"]) == ["left-thumb"])
        #expect(try await bashOffers(["config", "get", ""]) == Self.keys)
        #expect(try await bashOffers(["config", "set", "scan-timeout", ""]) == ["10s", "30s", "1m", "2m"])
        #expect(try await bashOffers(["export", "--format", ""]) == ["json", "markdown", "markdown-dir"])
        // A note id or search text has no list: nothing is offered rather than command names.
        #expect(try await bashOffers(["notes", "show", ""]).isEmpty)
        #expect(try await bashOffers(["notes", "search", ""]).isEmpty)
    }
}
