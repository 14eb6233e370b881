import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

@testable import FingerlockCLI

@Suite(.timed, .timeLimit(.minutes(3))) struct ControlCharactersEndToEndTests {
    let runner: BinaryRunner
    let touch = ["FINGERLOCK_SIMULATED_TOUCHES": "right-thumb"]
    let title = "evil\u{1B}[2J\u{1B}]0;pwned\u{07}\nfake 00000000  line\u{9B}"
    let tag = "t\u{08}ag"

    init() async throws {
        runner = BinaryRunner(extraEnvironment: ["FINGERLOCK_READER": "simulated"])
        try await runner.setPasscode()
        #expect(try await runner.enroll("right-thumb", touches: "right-thumb*5").status == 0)
    }

    /// Anything a terminal would act on, other than the newline ending each line.
    func rawControls(_ text: String) -> [Unicode.Scalar] {
        text.unicodeScalars.filter { ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value) }
    }

    func addEvilNote(body: String = "body\n") async throws -> (id: String, added: BinaryRunner.Result) {
        let added = try await runner.run(["notes", "add", "--title", title, "--tag", tag], environment: touch, stdin: body)
        #expect(added.status == 0, "\(added.stderr)")
        return (String(try #require(added.stdout.split(separator: " ").dropFirst().first).dropLast()), added)
    }

    @Test func listSearchShowAndAddPrintNoRawControls() async throws {
        let (id, added) = try await addEvilNote(body: "findme\n")
        #expect(rawControls(added.stdout).isEmpty)
        #expect(added.stdout.split(separator: "\n").count == 1)
        for arguments in [["notes", "list"], ["notes", "search", "findme"], ["notes", "list", "--tag", tag]] {
            let result = try await runner.run(arguments, environment: touch)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(rawControls(result.stdout).isEmpty, "\(arguments): \(result.stdout.debugDescription)")
            #expect(result.stdout.split(separator: "\n").count == 1, "a newline in a title fakes a line: \(result.stdout.debugDescription)")
            #expect(result.stdout.contains("evil\\u{1B}[2J\\u{1B}]0;pwned\\u{7}\\nfake"))
            #expect(result.stdout.contains("#t\\u{8}ag"))
        }
        let show = try await runner.run(["notes", "show", id], environment: touch)
        let header = show.stdout.split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false).prefix(2).joined(separator: "\n")
        #expect(rawControls(header).isEmpty)
        #expect(header.contains("#t\\u{8}ag"))
        let removed = try await runner.run(["notes", "rm", id, "--yes"], environment: touch)
        #expect(rawControls(removed.stdout).isEmpty)
        #expect(removed.stdout.hasPrefix("Moved \(id) to the trash: evil\\u{1B}"))
    }

    @Test func jsonKeepsTheExactTitleAndTags() async throws {
        _ = try await addEvilNote()
        for arguments in [["notes", "list", "--json"], ["notes", "search", "pwned", "--json"]] {
            let result = try await runner.run(arguments, environment: touch)
            let notes = try #require(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
            #expect(notes.first?["title"] as? String == title)
            #expect(notes.first?["tags"] as? [String] == [tag])
        }
    }

    @Test func aBodyIsExactWhenRedirectedAndDefusedAtATerminal() async throws {
        let body = "first\n\tsecond \u{1B}]52;c;Zm9v\u{07} \u{1B}[31mred\n"
        let (id, _) = try await addEvilNote(body: body)
        let redirected = try await runner.run(["notes", "show", id], environment: touch)
        #expect(redirected.stdout.hasSuffix("\n\n" + body))
        let session = try PseudoTerminalSession(
            arguments: ["notes", "show", id],
            environment: runner.environment.merging(["NO_COLOR": "1", "TERM": "xterm"].merging(touch) { $1 }) { $1 })
        #expect(await session.waitForExit() == 0)
        // The terminal turns each newline into CR LF; nothing else may be a control.
        let shown = session.output.replacingOccurrences(of: "\r\n", with: "\n")
        #expect(rawControls(shown).filter { $0 != "\t" }.isEmpty, "\(shown.debugDescription)")
        #expect(shown.contains("first\n\tsecond \\u{1B}]52;c;Zm9v\\u{7} \\u{1B}[31mred\n"))
    }

    @Test func theDeleteQuestionShowsTheTitleEscaped() async throws {
        let (id, _) = try await addEvilNote()
        let session = try PseudoTerminalSession(
            arguments: ["notes", "rm", id], environment: runner.environment.merging(["NO_COLOR": "1", "TERM": "dumb"].merging(touch) { $1 }) { $1 })
        await session.expect("[y/N] ")
        session.send("n\n")
        #expect(await session.waitForExit() == 2)
        let question = session.output.replacingOccurrences(of: "\r\n", with: "\n")
        #expect(question.contains("Delete \"evil\\u{1B}[2J\\u{1B}]0;pwned\\u{7}\\nfake 00000000  line\\u{9B}\"? [y/N] "))
        #expect(rawControls(question).isEmpty, "\(question.debugDescription)")
    }
}
