import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

@testable import FingerlockCLI

/// `notes show|edit|rm NAME`: the whole title or an id start (`NoteName`), then the title's start,
/// then a fuzzy match (a part of the title, its letters in order, a typo), all after the one touch.
/// In process (`InProcessCLI`); a person at a terminal opening a note by name is end to end.
@Suite(.timed, .timeLimit(.minutes(3))) struct OpenByNameTests {
    /// One touch per run: a second one would find the script used up and time out.
    let touch = ["FINGERLOCK_SIMULATED_TOUCHES": "right-thumb"]

    /// A vault with notes like a password store's; returns each title's id.
    func vault() async throws -> (InProcessCLI, [String: String]) {
        let runner = InProcessCLI(extraEnvironment: ["FINGERLOCK_READER": "simulated"])
        try await runner.setPasscode()
        #expect(try await runner.enroll("right-thumb", touches: "right-thumb*5").status == 0)
        var ids: [String: String] = [:]
        for (title, body) in [
            ("Gmail", "hunter2\nuser: me\n"), ("email/work", "pw-work\n"), ("Bank of Foo", "1234\n"), ("Banking app", "pin 9\n"),
            ("wifi", "first line\nsecret two\n"),
        ] {
            let added = try await runner.run(["notes", "add", "--title", title], environment: touch, stdin: body)
            try #require(added.status == 0, "\(added.stderr)")
            ids[title] = String(added.stdout.split(separator: " ")[1].dropLast())
        }
        return (runner, ids)
    }

    @Test func eachRuleFindsItsNoteWithOneTouch() async throws {
        let (runner, _) = try await vault()
        for (name, expected, taken) in [
            ("gmail", "hunter2", nil),  // the whole title, ignoring case
            ("GMA", "hunter2", nil),  // its start
            ("work", "pw-work", "\"work\" is taken as \"email/work\" (part of a title)."),  // a part of it
            ("emwk", "pw-work", "\"emwk\" is taken as \"email/work\" (letters of a title)."),  // its letters in order
            ("wfii", "first line", "\"wfii\" is taken as \"wifi\" (title with a typo)."),  // a typo
        ] {
            let shown = try await runner.run(["notes", "show", name, "--line", "1"], environment: touch)
            #expect(shown.status == 0, "\(name): \(shown.stderr)")
            #expect(shown.stdout == expected + "\n", "\(name)")
            // A loose match says which note it opened; an exact title or its start needs no word.
            if let taken {
                #expect(shown.stderr.contains("fingerlock: " + taken), "\(name): \(shown.stderr)")
            } else {
                #expect(!shown.stderr.contains("is taken as"), "\(name): \(shown.stderr)")
            }
        }
        let whole = try await runner.run(["notes", "show", "bank of foo", "--body"], environment: touch)
        #expect(whole.stdout == "1234\n")
    }

    @Test func anEightCharacterIDComesBeforeATitleForReading() async throws {
        let (runner, ids) = try await vault()
        let gmail = try #require(ids["Gmail"])
        // A note titled like another's id as `notes list` shows it: the id wins.
        let added = try await runner.run(["notes", "add", "--title", gmail], environment: touch, stdin: "decoy\n")
        #expect(added.status == 0)
        let shown = try await runner.run(["notes", "show", gmail, "--body"], environment: touch)
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdout == "hunter2\nuser: me\n")
    }

    /// The attack: a note titled `4eff` (say, through an import) and another whose id starts `4eff`.
    /// Reading opens the titled one; nothing that changes or deletes acts on either.
    @Test func aTitleLikeAnotherNotesIDStartNeverReachesTheOtherNote() async throws {
        let (runner, ids) = try await vault()
        let bank = try #require(ids["Bank of Foo"])
        let start = String(bank.prefix(4))
        let added = try await runner.run(["notes", "add", "--title", start], environment: touch, stdin: "decoy\n")
        try #require(added.status == 0, "\(added.stderr)")
        let shown = try await runner.run(["notes", "show", start, "--body"], environment: touch)
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdout == "decoy\n")
        for command in [["notes", "rm", "--purge", "--yes"], ["notes", "rm", "--yes"], ["notes", "edit"]] {
            let result = try await runner.run(command + [start], environment: touch, stdin: "replaced\n")
            #expect(result.status == 64, "\(command): \(result.stderr)")
            #expect(result.stderr.contains("is the title of "), "\(command): \(result.stderr)")
            #expect(result.stderr.contains("\(bank) (Bank of Foo)"), "\(command): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1)
        }
        let bankBody = try await runner.run(["notes", "show", bank, "--body"], environment: touch)
        #expect(bankBody.stdout == "1234\n")
        let listed = try await runner.run(["notes", "list", "--json"], environment: touch)
        #expect(try #require(JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [Any]).count == 6)
    }

    /// `history --restore` changes a note with nobody asked, and `trash restore` brings one back:
    /// neither takes a loose name, and a title that is another trashed note's id start names neither.
    @Test func historyRestoreAndTrashRestoreTakeNoLooseName() async throws {
        let (runner, ids) = try await vault()
        let gmail = try #require(ids["Gmail"])
        #expect(try await runner.run(["notes", "edit", "gmail", "--title", "Gmail"], environment: touch, stdin: "new pw\n").status == 0)
        for name in ["gmial", "gma", String(gmail.prefix(4))] {
            let loose = try await runner.run(["notes", "history", name, "--restore", "1"], environment: touch)
            #expect(loose.status == 64, "\(name): \(loose.stderr)")
            #expect(loose.stderr.contains("--restore acts on a whole title or at least 8 characters"), "\(loose.stderr)")
        }
        #expect(try await runner.run(["notes", "show", "gmail", "--line", "1"], environment: touch).stdout == "new pw\n")
        #expect(try await runner.run(["notes", "history", "GMAIL", "--restore", "1"], environment: touch).status == 0)

        // Both in the trash: a note titled like the start of the other's id.
        let bank = try #require(ids["Bank of Foo"])
        let decoy = try await runner.run(["notes", "add", "--title", String(bank.prefix(4))], environment: touch, stdin: "decoy\n")
        try #require(decoy.status == 0)
        let decoyID = String(decoy.stdout.split(separator: " ")[1].dropLast())
        #expect(try await runner.run(["notes", "rm", bank, decoyID, "--yes"], environment: touch).status == 0)
        let ambiguous = try await runner.run(["notes", "trash", "restore", String(bank.prefix(4))], environment: touch)
        #expect(ambiguous.status == 64, "\(ambiguous.stderr)")
        #expect(ambiguous.stderr.contains("(in the trash)"), "\(ambiguous.stderr)")
        let trash = try await runner.run(["notes", "trash", "--json"], environment: touch)
        #expect(try #require(JSONSerialization.jsonObject(with: Data(trash.stdout.utf8)) as? [Any]).count == 2)
    }

    @Test func severalTitlesAreListedAndNoneIsOneLine() async throws {
        let (runner, ids) = try await vault()
        for command in [["notes", "show"], ["notes", "edit"], ["notes", "rm", "--yes"]] {
            let result = try await runner.run(command + ["bank"], environment: touch, stdin: "replaced\n")
            #expect(result.status == 64, "\(command): \(result.stderr)")
            #expect(result.stdout.isEmpty)
            #expect(result.stderr.hasPrefix("fingerlock: \"bank\" matches 2 notes by title start: "))
            #expect(result.stderr.contains("\(ids["Bank of Foo"] ?? "?") (Bank of Foo)"))
            #expect(result.stderr.contains("\(ids["Banking app"] ?? "?") (Banking app)"))
            #expect(result.stderr.hasSuffix("; use more of the title, or an id.\n"))
            #expect(result.stderr.split(separator: "\n").count == 1)
        }
        let none = try await runner.run(["notes", "show", "zzzzqqq"], environment: touch)
        #expect(none.status == 5)
        #expect(none.stderr == "fingerlock: No note has an id starting with \"zzzzqqq\" or a title like it.\n")
        let listed = try await runner.run(["notes", "list", "--json"], environment: touch)
        #expect(try #require(JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [Any]).count == 5)
    }

    @Test func editAndRemoveByTitleAndRmYesWantsMoreThanAFuzzyMatch() async throws {
        let (runner, ids) = try await vault()
        let edited = try await runner.run(["notes", "edit", "wifi", "--title", "home wifi"], environment: touch)
        #expect(edited.status == 0, "\(edited.stderr)")
        #expect(edited.stdout == "Saved \(ids["wifi"] ?? "?"): home wifi\n")

        // Deleting with nobody to see which note a loose match picked is refused, and nothing goes.
        let loose = try await runner.run(["notes", "rm", "--yes", "emwk"], environment: touch)
        #expect(loose.status == 64)
        #expect(
            loose.stderr.contains("matches only by letters of a title: --yes acts on a whole title or at least 8 characters of an id."),
            "\(loose.stderr)")
        let removed = try await runner.run(["notes", "rm", "--yes", "EMAIL/WORK"], environment: touch)
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(removed.stdout == "Moved \(ids["email/work"] ?? "?") to the trash: email/work\n")
        let listed = try await runner.run(["notes", "list", "--json"], environment: touch)
        let titles = try #require(JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]]).map { $0["title"] as? String }
        #expect(Set(titles.compactMap { $0 }) == ["Gmail", "Bank of Foo", "Banking app", "home wifi"])
    }

    @Test func theLineIsPrintedWithoutClipAndOutOfRangeIsOneLine() async throws {
        let (runner, _) = try await vault()
        let second = try await runner.run(["notes", "show", "wifi", "--line", "2"], environment: touch)
        #expect(second.status == 0)
        #expect(second.stdout == "secret two\n")
        let beyond = try await runner.run(["notes", "show", "wifi", "--line", "3"], environment: touch)
        #expect(beyond.status == 64)
        #expect(beyond.stdout.isEmpty)
        #expect(beyond.stderr == "fingerlock: --line 3: the body has 2 lines; nothing was printed.\n")
        // Refused before any touch (none scripted here).
        for arguments in [["--line", "1", "--json"], ["--line", "1", "--body"], ["--clip", "--clip-all"], ["--clip-all", "--line", "2"]] {
            let refused = try await runner.run(["notes", "show", "wifi"] + arguments)
            #expect(refused.status == 64, "\(arguments): \(refused.stderr)")
        }
    }

    @Test func titleRulesInOrder() {
        let titles = ["Gmail", "email/gmail", "Bank", "Bank of Foo", "wifi", ""]
        #expect(NoteTitleMatch.find("bank", in: titles) == NoteTitleMatch(rule: .exact, matches: [2]))
        #expect(NoteTitleMatch.find("ban", in: titles) == NoteTitleMatch(rule: .prefix, matches: [2, 3]))
        #expect(NoteTitleMatch.find("gmail", in: titles) == NoteTitleMatch(rule: .exact, matches: [0]))
        #expect(NoteTitleMatch.find("mail", in: titles) == NoteTitleMatch(rule: .part, matches: [0, 1]))
        #expect(NoteTitleMatch.find("egm", in: titles) == NoteTitleMatch(rule: .subsequence, matches: [1]))
        #expect(NoteTitleMatch.find("wfii", in: titles) == NoteTitleMatch(rule: .typo, matches: [4]))
        #expect(NoteTitleMatch.find("xyzzy", in: titles) == nil)
        #expect(NoteTitleMatch.find("", in: titles) == nil)
    }

    /// Names forgive more: a swapped pair in a word of a pass path, and letters typed without their
    /// diacritics; a name that finds nothing says the nearest titles.
    @Test func aTransposedLetterOrMissingDiacriticsStillFindTheNote() {
        let titles = ["web/github.com", "Münchner Bank", "email", "Zürich Versicherung"]
        #expect(NoteTitleMatch.find("githbu", in: titles) == NoteTitleMatch(rule: .typo, matches: [0]))
        #expect(NoteTitleMatch.find("munchner", in: titles) == NoteTitleMatch(rule: .prefix, matches: [1]))
        #expect(NoteTitleMatch.find("MUNCHNER BANK", in: titles) == NoteTitleMatch(rule: .exact, matches: [1]))
        #expect(NoteTitleMatch.find("versicherugn", in: titles) == NoteTitleMatch(rule: .typo, matches: [3]))
        // Two typos in six letters is past what `find` takes, but near enough to be suggested.
        #expect(NoteTitleMatch.find("gtihbbx", in: titles) == nil)
        #expect(NoteTitleMatch.nearest("gtihbbx", in: titles, count: 3) == [0])
        #expect(NoteTitleMatch.nearest("qqqqqqqq", in: titles, count: 3).isEmpty)
    }

    @Test func aNameThatFindsNothingSaysTheNearestTitles() async throws {
        let (runner, _) = try await vault()
        let none = try await runner.run(["show", "wfiixx"], environment: touch)
        #expect(none.status == 5)
        #expect(
            none.stderr == "fingerlock: No note has an id starting with \"wfiixx\" or a title like it; the nearest: \"wifi\".\n",
            "\(none.stderr)")
    }
}
