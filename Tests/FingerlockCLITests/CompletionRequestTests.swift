import FingerlockTestSupport
import Testing

@testable import FingerlockCLI

/// What the binary answers a shell's TAB with, in-process (the shells themselves run in
/// `ShellCompletionSafetyTests`): the word as the shell passes it, the titles it may offer, and the
/// scripts that read them.
@Suite(.timed) struct CompletionRequestTests {
    @Test(
        "a typed word means what the shell would make of it",
        arguments: [
            (#"zz\$H"#, "zz$H"), ("'bank of", "bank of"), (#""a \"b\" \$c"#, #"a "b" $c"#), (#"$'tab\there'"#, "tab\there"),
            ("plain", "plain"), (#"back\\slash"#, #"back\slash"#), ("$HOME", "$HOME"), ("`x`", "`x`"),
        ])
    func aTypedWordIsDequotedNeverExpanded(_ typed: String, _ meant: String) {
        #expect(ShellWord.dequoted(typed) == meant)
    }

    @Test func eachShellsRequestGivesTheWordBeforeTheCursor() throws {
        // bash and zsh: the word's index, the cursor's offset in it, then the words.
        let bash = try #require(
            NoteCompletion(
                ["---completion", "notes", "show", "--", "positional@0", "3", "4", "fingerlock", "notes", "show", #"zz\$Hx"#]))
        #expect(bash.typed == "zz$")
        #expect(!bash.afterOptionsEnd)
        // fish: the word's index, the word up to the cursor as typed, then the words unescaped.
        let fish = try #require(
            NoteCompletion(
                ["---completion", "notes", "rm", "--", "positional@0", "4", #"t\ w"#, "fingerlock", "notes", "rm", "--", "t w"],
                environment: ["SAP_SHELL": "fish"]))
        #expect(fish.typed == "t w")
        #expect(fish.afterOptionsEnd)
        // otp takes a note too, one level up.
        let otp = try #require(
            NoteCompletion(["---completion", "otp", "--", "positional@0", "2", "2", "fingerlock", "otp", "gi"]))
        #expect(otp.typed == "gi")
        #expect(NoteCompletion(["---completion", "notes", "search", "--", "positional@0", "3", "0", "fingerlock"]) == nil)
        #expect(NoteCompletion(["---completion", "otp", "show", "--", "positional@0", "3", "0", "fingerlock"]) == nil)
        #expect(NoteCompletion(["---completion", "notes", "show", "--", "--reader", "3", "0", "fingerlock"]) == nil)
    }

    @Test func titlesAreFilteredAndNoneCanBeAnOptionOrBreakALine() throws {
        let titles = ["Gmail", "gitlab", "-rf", "--help", "two\nlines", "tab\there", "bell\u{07}", "wifi", "Gmail"]
        let plain = try #require(
            NoteCompletion(["---completion", "notes", "show", "--", "positional@0", "3", "1", "fingerlock", "notes", "show", "g"]))
        #expect(plain.lines(for: titles) == ["Gmail", "gitlab"])
        let dash = try #require(
            NoteCompletion(["---completion", "notes", "show", "--", "positional@0", "3", "1", "fingerlock", "notes", "show", "-"]))
        #expect(dash.lines(for: titles).isEmpty)
        let afterEnd = try #require(
            NoteCompletion(
                ["---completion", "notes", "show", "--", "positional@0", "4", "1", "fingerlock", "notes", "show", "--", "-"]))
        #expect(afterEnd.lines(for: titles) == ["--help", "-rf"])
    }

    /// bash: the text readline replaces, for `typed` (the word as typed) and `text` (its end after
    /// the last word break or opened quote).
    func bashLine(_ title: String, typed: String, text: String) throws -> String? {
        let request = try #require(
            NoteCompletion(
                ["---completion", "notes", "show", "--", "positional@0", "3", String(typed.count), "fingerlock", "notes", "show", typed],
                environment: ["SAP_SHELL": "bash", "FINGERLOCK_COMPLETION_TEXT": text]))
        return request.bashLine(title)
    }

    /// pass completes a store folder by folder; so do titles with a `/`, where the folder is plain.
    @Test func titlesWithASlashAreCompletedFolderByFolder() throws {
        let titles = ["bank/main", "bank/savings", "bank", "mail/work/alice", "mail/home", "a b/c", "x;y/z", "trailing/"]
        func offered(_ typed: String) throws -> [String] {
            try #require(
                NoteCompletion(
                    ["---completion", "show", "--", "positional@0", "2", String(typed.count), "fingerlock", "show", typed])
            ).lines(for: titles)
        }
        #expect(try offered("ba") == ["bank", "bank/"])
        #expect(try offered("bank/") == ["bank/main", "bank/savings"])
        #expect(try offered("m") == ["mail/"])
        #expect(try offered("mail/") == ["mail/home", "mail/work/"])
        #expect(try offered("mail/w") == ["mail/work/"])
        #expect(try offered("mail/work/") == ["mail/work/alice"])
        // A folder a shell could split or quote differently between two TABs is offered whole.
        #expect(try offered("a") == ["a b/c"])
        #expect(try offered("x") == ["x;y/z"])
        #expect(try offered("t") == ["trailing/"])
    }

    @Test func bashGetsEachTitleQuotedForTheQuoteLeftOpen() throws {
        // A plain word: the whole title, every special character escaped (also its case).
        let plain = try bashLine("T01$(touch x) ~!#;|&<>*?[a]{b,c}'\"\\=:", typed: "t0", text: "t0")
        #expect(plain == ##"T01\$\(touch\ x\)\ \~\!\#\;\|\&\<\>\*\?\[a\]\{b,c\}\'\"\\\=\:"##, "\(plain ?? "nil")")
        #expect(try bashLine("Münchner Straße", typed: "mü", text: "mü") == #"Münchner\ Straße"#)
        // An opened single quote: the rest, its quotes as '\'', and the quote closed.
        #expect(try bashLine("a5${F:=`id`}'x", typed: "'a5", text: "a5") == #"a5${F:=`id`}'\''x'"#)
        // An opened double quote: `$`, backquotes, `"` and `\` escaped, `!` outside the quotes.
        #expect(try bashLine("a$((b[`id`]))!\"\\", typed: "\"a", text: "a") == #"a\$((b[\`id\`]))"\!"\"\\""#)
        // After a common start ended inside a reopened quote: what comes after it.
        #expect(try bashLine("zz'x", typed: "'zz'\\''", text: "") == "x'")
        // bash's $'…'.
        #expect(try bashLine("q'\\", typed: "$'q", text: "q") == #"q\'\\'"#)
        // What was typed inside the quote is written again, never kept: a typed `$`, a dangling `\\` or
        // a `!` cannot join the title's next characters (the second attack's ways in).
        #expect(try bashLine("c$(touch m)", typed: "\"c$", text: "c$") == #"c\$(touch m)""#)
        #expect(try bashLine(#"zq\";touch m;#"#, typed: "\"zq\\", text: "zq\\") == #"zq\\\";touch m;#""#)
        #expect(try bashLine(#"zs\';touch m;#"#, typed: "$'zs\\", text: "zs\\") == #"zs\\\';touch m;#'"#)
        #expect(try bashLine("q!-1", typed: "\"q!-", text: "q!-") == #"q"\!"-1""#)
        // A text that is not the end of the word: nothing rather than a wrong word.
        #expect(try bashLine("zz", typed: "zz", text: "y") == nil)
    }

    @Test func zshGetsItsColonsAndBackslashesEscapedAndItsClosingLine() throws {
        let zsh = try #require(
            NoteCompletion(
                ["---completion", "notes", "edit", "--", "positional@0", "3", "0", "fingerlock", "notes", "edit", ""],
                environment: ["SAP_SHELL": "zsh"]))
        #expect(zsh.lines(for: ["work:vpn", #"a\b"#]) == [#"a\\b"#, #"work\:vpn"#, " "])
    }

    @Test func noScriptHandsABinaryWordToCompgenOrLeavesABangUnquoted() throws {
        let bash = try CompletionScript.generate(for: "bash")
        #expect(!bash.contains(#"-W "$(__fingerlock_custom_complete"#))
        #expect(bash.contains("\(CompletionScript.literalFunction) __fingerlock_custom_complete ---completion notes show -- positional@0"))
        #expect(bash.contains(#"compopt +o filenames"#))
        #expect(bash.contains(#"done < <(FINGERLOCK_COMPLETION_TEXT="${cur}" "${@}")"#))
        let zsh = try CompletionScript.generate(for: "zsh")
        #expect(zsh.contains("__fingerlock_custom_complete() {\n    setopt localoptions banghist\n"))
        #expect(throws: CLIError.self) { try CompletionScript.generate(for: "tcsh") }
    }
}
