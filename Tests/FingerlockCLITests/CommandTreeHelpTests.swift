import ArgumentParser
import FingerlockCLITestSupport
import FingerlockTestSupport
import Testing

@testable import FingerlockCLI

/// One command of the tree, by the words that name it (`[]` is `fingerlock` itself).
struct CommandPath: Sendable, CustomTestStringConvertible {
    var words: [String]
    var isGroup: Bool

    var testDescription: String { (["fingerlock"] + words).joined(separator: " ") }

    /// Every command under `Fingerlock`, found through ArgumentParser's own configuration, so a
    /// command added later is walked without touching this test.
    static let all: [CommandPath] = walk(Fingerlock.self, words: [])
    static var groups: [CommandPath] { all.filter(\.isGroup) }

    private static func walk(_ command: any ParsableCommand.Type, words: [String]) -> [CommandPath] {
        let subcommands = command.configuration.subcommands
        // A group with a default subcommand (`sync`, like `git stash`) runs it when named alone.
        return [CommandPath(words: words, isGroup: !subcommands.isEmpty && command.configuration.defaultSubcommand == nil)]
            + subcommands.flatMap { walk($0, words: words + [$0.configuration.commandName ?? ""]) }
    }

    /// The first line of the command's own help, as ArgumentParser writes it.
    func isUsageLine(_ line: Substring) -> Bool {
        let usage = "USAGE: " + testDescription
        return line == usage || line.hasPrefix(usage + " ")
    }

    func usageLine(in text: String) -> Substring? {
        text.split(separator: "\n").first { $0.hasPrefix("USAGE:") }
    }
}

/// Every command's help is its own, however it is asked for (in process).
@Suite(.timed, .timeLimit(.minutes(3))) struct CommandTreeHelpTests {
    let runner = InProcessCLI()

    @Test func theTreeIsWalked() {
        // A walk that found nothing would make every other test here pass vacuously.
        let names = Set(CommandPath.all.map(\.testDescription))
        #expect(names.isSuperset(of: ["fingerlock", "fingerlock notes", "fingerlock notes add", "fingerlock config set"]))
    }

    @Test("--help, -h and help COMMAND print the command's own usage", arguments: CommandPath.all)
    func helpIsTheCommandsOwn(_ command: CommandPath) async throws {
        for arguments in [command.words + ["--help"], command.words + ["-h"], ["help"] + command.words] {
            let result = try await runner.run(arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            #expect(result.stderr.isEmpty, "\(arguments)")
            let usage = try #require(command.usageLine(in: result.stdout), "\(arguments): \(result.stdout)")
            #expect(command.isUsageLine(usage), "\(arguments) printed \(usage)")
        }
    }

    @Test(
        "a group named without a subcommand prints its own help on stderr and exits 64, as git does",
        arguments: CommandPath.groups)
    func bareGroupIsAUsageError(_ command: CommandPath) async throws {
        let result = try await runner.run(command.words)
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        let usage = try #require(command.usageLine(in: result.stderr), "\(result.stderr)")
        #expect(command.isUsageLine(usage), "printed \(usage)")
        #expect(result.stderr.contains("SUBCOMMANDS:"))
    }

    @Test func syncNamedAloneSyncsAsSyncNowDoes() async throws {
        let alone = try await runner.run(["sync"])
        let now = try await runner.run(["sync", "now"])
        #expect(alone.status == 7)
        #expect(alone.status == now.status)
        #expect(alone.stderr == now.stderr)
    }

    @Test func globalOptionsBeforeTheCommandKeepItsHelp() async throws {
        let result = try await runner.run(["--reader", "simulated", "--data-dir", "/nonexistent", "notes", "add", "--help"])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("OVERVIEW: Add a note"))
        #expect(result.stdout.contains("--tag <tag>"))
    }
}
