import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

@testable import FingerlockCLI

/// A typo gets "did you mean …?" in one line on stderr (in process; a connected reader's typo: ConnectedReaderTypoTests).
@Suite(.timed, .timeLimit(.minutes(2))) struct TypoSuggestionTests {
    let runner = InProcessCLI(extraEnvironment: ["FINGERLOCK_READER": "simulated"])

    struct Case: Sendable, CustomTestStringConvertible {
        var arguments: [String]
        var environment: [String: String] = [:]
        var status: Int32 = 64
        var message: String
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let usageCases: [Case] = [
        Case(arguments: ["enrol"], message: "`enrol` is not a fingerlock command; did you mean `enroll`?"),
        Case(arguments: ["--reader", "simulated", "enrol", "left-thumb"], message: "`enrol` is not a fingerlock command; did you mean `enroll`?"),
        Case(arguments: ["notes", "ad"], message: "`ad` is not a `fingerlock notes` command; did you mean `add`?"),
        // An alias and its command are one suggestion: the nearer of the two, the name on a tie.
        Case(arguments: ["notes", "lst"], message: "`lst` is not a `fingerlock notes` command; did you mean `list`?"),
        Case(arguments: ["notes", "lss"], message: "`lss` is not a `fingerlock notes` command; did you mean `ls`?"),
        Case(arguments: ["frobnicate"], message: "`frobnicate` is not a fingerlock command (see `fingerlock --help`)"),
        // pass habits: notes commands typed at the top that are not everyday verbs there (show, ls,
        // find, grep, edit and rm are).
        Case(arguments: ["add", "--title", "x"], message: "`add` is not a fingerlock command; did you mean `fingerlock notes add`?"),
        Case(arguments: ["history", "gmail"], message: "`history` is not a fingerlock command; did you mean `fingerlock notes history`?"),
        Case(arguments: ["tags"], message: "`tags` is not a fingerlock command; did you mean `fingerlock notes tags`?"),
        Case(arguments: ["shwo", "gmail"], message: "`shwo` is not a fingerlock command; did you mean `show`?"),
        // `help WRONG` is an error, never the top-level help.
        Case(arguments: ["help", "enrol"], message: "`enrol` is not a fingerlock command; did you mean `enroll`?"),
        Case(arguments: ["help", "frobnicate"], message: "`frobnicate` is not a fingerlock command (see `fingerlock --help`)"),
        Case(arguments: ["help", "notes", "lst"], message: "`lst` is not a `fingerlock notes` command; did you mean `list`?"),
        Case(arguments: ["help", "trash"], message: "`trash` is not a fingerlock command; did you mean `fingerlock notes trash`?"),
        Case(arguments: ["notes", "xyzzy"], message: "`xyzzy` is not a `fingerlock notes` command (see `fingerlock notes --help`)"),
        Case(arguments: ["enroll", "right-indx-finger"], message: "'right-indx-finger' is not a finger; did you mean `right-index-finger`?"),
        Case(arguments: ["forget", "left-thum"], message: "'left-thum' is not a finger; did you mean `left-thumb`?"),
        Case(arguments: ["verify", "anny"], message: "'anny' is not a finger; did you mean `any`?"),
        Case(
            arguments: ["enroll", "wrist"],
            message: "'wrist' is not a finger; use one of: left-thumb, left-index-finger, left-middle-finger, left-ring-finger, "
                + "left-little-finger, right-thumb, right-index-finger, right-middle-finger, right-ring-finger, right-little-finger. "
                + "(see `fingerlock enroll --help`)"),
        Case(
            arguments: ["notes", "list", "--sort", "bogus"],
            message:
                "The value 'bogus' is invalid for '--sort <sort>'. Please provide one of 'modified', 'created' or 'title'. (see `fingerlock notes list --help`)"
        ),
        Case(arguments: ["config", "get", "cache-expirey"], message: "Unknown setting 'cache-expirey'; did you mean `cache-expiry`?"),
        Case(arguments: ["config", "set", "max-trys", "3"], message: "Unknown setting 'max-trys'; did you mean `max-tries`?"),
        Case(arguments: ["--reader", "simulatd", "readers"], message: "--reader simulatd: did you mean `simulated`?"),
        Case(arguments: ["readers"], environment: ["FINGERLOCK_READER": "atuo"], message: "--reader atuo: did you mean `auto`?"),
    ]

    @Test("typos in commands, fingers, settings and --reader", arguments: usageCases)
    func suggestion(_ typo: Case) async throws {
        let result = try await runner.run(typo.arguments, environment: typo.environment)
        #expect(result.status == typo.status)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "fingerlock: \(typo.message)\n")
    }

    @Test func withJSONTheSuggestionIsTheMessage() async throws {
        let result = try await runner.run(["notes", "lst", "--json"])
        #expect(result.status == 64)
        let object = try #require(JSONSerialization.jsonObject(with: Data(result.stderr.utf8)) as? [String: String])
        #expect(
            object == [
                "error": "usage", "message": "`lst` is not a `fingerlock notes` command; did you mean `list`?",
                "version": FingerlockVersion.current,
            ])
    }
}
