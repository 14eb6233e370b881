import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

/// pass's everyday verbs at the top level (`show`, `ls`, `find`, `grep`, `edit`, `rm`): the same
/// commands as under `notes`, with the same output.
@Suite(.timed, .timeLimit(.minutes(3))) struct EverydayVerbsTests {
    let runner = InProcessCLI(extraEnvironment: ["FINGERLOCK_READER": "simulated"])
    let touch = ["FINGERLOCK_SIMULATED_TOUCHES": "right-thumb*4"]

    init() async throws {
        try await runner.setPasscode()
        #expect(try await runner.enroll("right-thumb", touches: "right-thumb*5").status == 0)
        for (title, body) in [("github", "gh-secret\nuser: alice\n"), ("bank/main", "pin 1234\n"), ("wifi", "password for github too\n")] {
            #expect(try await runner.run(["notes", "add", "--title", title], environment: touch, stdin: body).status == 0)
        }
    }

    @Test func eachShortVerbDoesWhatItsNotesCommandDoes() async throws {
        let pairs: [([String], [String])] = [
            (["show", "github"], ["notes", "show", "github"]),
            (["show", "github", "--line", "2"], ["notes", "show", "github", "--line", "2"]),
            (["ls"], ["notes", "list"]),
            (["list", "--json"], ["notes", "ls", "--json"]),
            (["grep", "github"], ["notes", "search", "github"]),
            (["find", "bank"], ["notes", "search", "--title", "bank"]),
        ]
        for (short, long) in pairs {
            let a = try await runner.run(short, environment: touch)
            let b = try await runner.run(long, environment: touch)
            #expect(a.status == 0 && a.status == b.status, "\(short): \(a.stderr)")
            #expect(a.stdout == b.stdout, "\(short) against \(long)")
        }
        // find looks in titles only: the body that mentions github is not found by it, grep finds it.
        #expect(try await runner.run(["find", "github"], environment: touch).stdout.contains("wifi") == false)
        #expect(try await runner.run(["grep", "github"], environment: touch).stdout.contains("wifi"))
        #expect(try await runner.run(["find", "nothing-like-it"], environment: touch).status == 1)
    }

    @Test func aSlashInATitleIsAFolderThatLsListsAndDrawsAsATree() async throws {
        for title in ["bank/savings", "mail/work/alice", "bank"] {
            #expect(try await runner.run(["notes", "add", "--title", title], environment: touch, stdin: "x\n").status == 0)
        }
        let titles = { (arguments: [String]) async throws -> [String] in
            let listed = try await runner.run(arguments + ["--json"], environment: touch)
            #expect(listed.status == 0, "\(listed.stderr)")
            let rows = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
            return rows.compactMap { $0["title"] as? String }.sorted()
        }
        #expect(try await titles(["ls", "bank"]) == ["bank/main", "bank/savings"])
        #expect(try await titles(["notes", "list", "bank/"]) == ["bank/main", "bank/savings"])
        #expect(try await titles(["ls", "mail"]) == ["mail/work/alice"])
        // -n counts the folder's notes, not the vault's.
        #expect(try await titles(["ls", "bank", "-n", "1"]).count == 1)
        let none = try await runner.run(["ls", "nope"], environment: touch)
        #expect(none.status == 0 && none.stdout == "No note is in nope/.\n", "\(none.stdout)")

        let tree = try await runner.run(["ls", "--tree"], environment: touch)
        #expect(tree.status == 0, "\(tree.stderr)")
        #expect(
            tree.stdout == """
                Notes
                ├── bank
                ├── bank/
                │   ├── main
                │   └── savings
                ├── github
                ├── mail/
                │   └── work/
                │       └── alice
                └── wifi

                """, "\(tree.stdout)")
        #expect(try await runner.run(["ls", "bank", "--tree"], environment: touch).stdout == "bank/\n├── main\n└── savings\n")
        #expect(try await runner.run(["ls", "--tree", "--json"], environment: touch).status == 64)
    }

    @Test func rmAndEditAtTheTopLevelChangeTheNote() async throws {
        let edited = try await runner.run(["edit", "wifi"], environment: touch, stdin: "new wifi password\n")
        #expect(edited.status == 0, "\(edited.stderr)")
        #expect(try await runner.run(["show", "wifi", "--body"], environment: touch).stdout == "new wifi password\n")
        let removed = try await runner.run(["rm", "wifi", "--yes"], environment: touch)
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(removed.stdout.contains("trash"), "\(removed.stdout)")
        #expect(try await runner.run(["ls"], environment: touch).stdout.contains("wifi") == false)
    }
}

/// One rule for titles shown without a touch: while this process's keyring holds the key, `ls`,
/// `find` and `notes tags` show titles and tags as TAB completion does; a body always takes the touch.
@Suite(.timed, .timeLimit(.minutes(2))) struct TitlesWithoutATouchTests {
    let runner = InProcessCLI(extraEnvironment: ["FINGERLOCK_READER": "simulated"])
    /// A touch that never comes: whatever asks for one fails.
    let noTouch = ["FINGERLOCK_SIMULATED_TOUCHES": "absent"]

    @Test func titlesNeedNoTouchWhileTheKeyIsCachedAndBodiesAlwaysDo() async throws {
        try await runner.setPasscode()
        #expect(try await runner.enroll("right-thumb", touches: "right-thumb*5").status == 0)
        #expect(
            try await runner.run(
                ["notes", "add", "--title", "bank/main", "--tag", "money"], environment: ["FINGERLOCK_SIMULATED_TOUCHES": "right-thumb"],
                stdin: "pin\n"
            )
            .status == 0)
        for arguments in [["ls"], ["ls", "--json"], ["ls", "bank", "--tree"], ["find", "bank"], ["notes", "tags"]] {
            let listed = try await runner.run(arguments, environment: noTouch)
            #expect(listed.status == 0, "\(arguments): \(listed.stderr)")
            #expect(listed.stdout.contains("bank") || listed.stdout.contains("money"), "\(arguments): \(listed.stdout)")
        }
        for arguments in [["show", "bank/main"], ["grep", "pin"]] {
            let opened = try await runner.run(arguments, environment: noTouch)
            #expect(opened.status != 0, "\(arguments) opened a body without a touch")
            #expect(!opened.stdout.contains("pin"))
        }
        // Once the key is gone, a listing takes the touch again.
        #expect(try await runner.run(["lock"]).status == 0)
        let locked = try await runner.run(["ls"], environment: noTouch)
        #expect(locked.status != 0)
        #expect(!locked.stdout.contains("bank"))
    }
}

/// Every command that takes a note says in its help that a title or an id names it.
@Suite(.timed, .timeLimit(.minutes(1))) struct NoteArgumentHelpTests {
    @Test func everyCommandThatTakesANoteSaysIdOrTitle() async throws {
        let runner = InProcessCLI()
        for command in [
            ["show"], ["otp"], ["edit"], ["rm"], ["notes", "show"], ["notes", "edit"], ["notes", "rm"], ["notes", "history"],
            ["notes", "trash"], ["restore"],
        ] {
            let help = try await runner.run(command + ["--help"])
            #expect(help.status == 0, "\(command)")
            #expect(help.stdout.contains("id-or-title"), "\(command): \(help.stdout)")
        }
    }
}
