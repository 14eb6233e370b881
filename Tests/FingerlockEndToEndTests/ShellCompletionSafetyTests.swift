import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

/// Note titles are data: at TAB, bash, zsh and fish (Debian's, each running the script the binary
/// writes, interactively in a pseudo-terminal) put a title on the command line as one word that
/// means exactly the title, and nothing in a title runs. Each title starts with letters of its own,
/// so that typing them and TAB completes that title alone; the line is then run through
/// `printf` to see the words the shell made of it.
@Suite(.timed, .timeLimit(.minutes(6))) struct ShellCompletionSafetyTests {
    /// Where a title that ran would leave its mark.
    static func titles(marks: String) -> [String] {
        [
            "t01$(touch \(marks)/dollar-paren)", "t02`touch \(marks)/backquote`", "t03$HOME", "t04;touch \(marks)/semicolon",
            "t05|touch \(marks)/pipe", "t06*", "t07'single\"double", "t08\\back\\slash", "t09:colon:here", "t10 Münchner Straße 🍰",
            "t11  two  spaces", "t12$'\\x41'", "t13&touch \(marks)/ampersand", "t14>\(marks)/redirect", "t15{a,b}~!#",
            // Expansions that bash runs when it asks whether a word names a directory.
            "t16${FLZ:=$(touch \(marks)/default)}", "t17$((a[$(touch \(marks)/arith)]))", "t18${x[`touch \(marks)/index`]}",
            "t19~root/$HOME", "t20'\\''q!x",
        ]
    }

    /// The shells, as each starts for a person with no configuration, and the line that loads the script.
    static let shells: [(name: String, program: String, arguments: [String], setUp: @Sendable (String) -> String)] = [
        ("bash", "/bin/bash", ["--norc", "--noprofile", "-i"], { "source '\($0)'; PS1='$ '" }),
        ("zsh", "/usr/bin/zsh", ["-f", "-i"], { "autoload -U compinit; compinit -u -D; source '\($0)'; PS1='$ '" }),
        ("fish", "/usr/bin/fish", ["--no-config", "-i"], { "source '\($0)'; function fish_prompt; echo '$ '; end" }),
    ]

    @Test(arguments: ["bash", "zsh", "fish"])
    func aCompletedTitleIsTheTitleAndNothingInItRuns(_ shellName: String) async throws {
        let shell = try #require(Self.shells.first { $0.name == shellName })
        let runner = BinaryRunner(extraEnvironment: ["FINGERLOCK_READER": "simulated"])
        let marks = runner.home + "/marks"
        try FileManager.default.createDirectory(atPath: marks, withIntermediateDirectories: true)
        try await runner.setPasscode()
        #expect(try await runner.enroll("right-thumb", touches: "right-thumb*5").status == 0)
        let titles = Self.titles(marks: marks) + ["-rf"]
        for title in titles {
            let added = try await runner.run(
                ["notes", "add", "--title=\(title)"], environment: ["FINGERLOCK_SIMULATED_TOUCHES": "right-thumb"], stdin: "body\n")
            try #require(added.status == 0, "\(title): \(added.stderr)")
        }

        // The script as the package installs it, and `fingerlock` on the PATH as a person has it.
        let script = runner.home + "/fingerlock.\(shell.name)"
        let generated = try await runner.run(["--generate-completion-script", shell.name])
        try #require(generated.status == 0)
        try generated.stdout.write(toFile: script, atomically: false, encoding: .utf8)
        // `fingerlock` on the PATH runs the binary unchanged and then counts the call, so a completion
        // is known to have ended (instead of waiting a fixed time after each TAB, as the test once did).
        let bin = runner.home + "/bin"
        let calls = runner.home + "/completion-calls"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try "#!/bin/sh\n'\(BinaryRunner.binaryPath)' \"$@\"\nstatus=$?\nprintf x >> '\(calls)'\nexit $status\n"
            .write(toFile: bin + "/fingerlock", atomically: true, encoding: .utf8)
        chmod(bin + "/fingerlock", 0o755)
        func callCount() -> Int { (try? Data(contentsOf: URL(fileURLWithPath: calls)).count) ?? 0 }
        let environment = runner.environment.merging([
            "PATH": "\(bin):/usr/bin:/bin", "TERM": "xterm", "FINGERLOCK_SIMULATED_TOUCHES": "timeout",
            "XDG_CONFIG_HOME": runner.home + "/config", "XDG_DATA_HOME": runner.home + "/share",
        ]) { $1 }
        let session = try PseudoTerminalSession(program: shell.program, arguments: shell.arguments, environment: environment)
        session.send(shell.setUp(script) + "\n")
        session.send("printf '%s-%s\\n' READY NOW\n")
        await session.expect("READY-NOW")

        /// Types `typed`, TAB, then runs the line through printf; the words the shell made of it.
        /// `callsBinary`: false where the script completes without asking the binary (an option).
        /// A title with a `/` is completed folder by folder: `tabs` is how many TABs reach its end.
        func completed(_ typed: String, mark: String, callsBinary: Bool = true, tabs: Int = 1, then more: [String] = []) async -> [String] {
            session.send("fingerlock notes show \(typed)")
            for step in 0..<tabs {
                let before = callCount()
                session.send((step == 0 ? "" : more.indices.contains(step - 1) ? more[step - 1] : "") + "\t")
                // The completion runs the binary: let it answer, and the shell write the line, before it is run.
                let deadline = ContinuousClock.now.advanced(by: callsBinary ? .seconds(20) : .milliseconds(500))
                while callCount() == before, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
                await session.waitForQuiet(.milliseconds(150))
            }
            // Ctrl-A, printf before the words (each after a record separator), Ctrl-E, a closing mark.
            session.send("\u{01}printf '\\x1e%s' \u{05}; printf '|%s-%s\\n' END \(mark)\n")
            guard await session.expect("|END-\(mark)", timeout: .seconds(20)) else { return [] }
            let output = session.output
            guard let end = output.range(of: "|END-\(mark)", options: .backwards),
                let start = output[..<end.lowerBound].range(of: "\u{1E}fingerlock", options: .backwards)
            else { return [] }
            return output[start.lowerBound..<end.lowerBound].split(separator: "\u{1E}", omittingEmptySubsequences: false)
                .dropFirst().map(String.init)
        }

        // Each title here has a character before its `/` that keeps it whole (`NoteCompletion.folderStep`): one TAB.
        for (index, title) in Self.titles(marks: marks).enumerated() {
            let words = await completed(String(title.prefix(3)), mark: "T\(index)")
            #expect(words == ["fingerlock", "notes", "show", title], "\(shell.name): \(title.debugDescription) became \(words)")
        }
        // The same after a quote the user opened, of either kind.
        for (index, title) in Self.titles(marks: marks).enumerated() where index % 2 == 0 || index >= 15 {
            for quote in ["'", "\""] {
                let words = await completed(quote + String(title.prefix(3)), mark: "Q\(index)\(quote == "'" ? "s" : "d")")
                #expect(
                    words == ["fingerlock", "notes", "show", title], "\(shell.name): \(quote)\(title.debugDescription) became \(words)")
            }
        }
        // bash: what was typed inside an opened quote is written again, never kept as typed (a typed
        // `$`, a dangling backslash, a `!` joined the title's next characters into code at Enter).
        if shell.name == "bash" {
            for (index, (typed, title)) in [
                (#""t21c$"#, "t21c$(touch \(marks)/typed-dollar)"), (#""t22\"#, #"t22\";touch "# + marks + #"/dangling;#"#),
                (#"$'t23\"#, #"t23\';touch "# + marks + #"/ansi;#"#), (#""t24!-"#, "t24!-1"),
            ].enumerated() {
                let added = try await runner.run(
                    ["notes", "add", "--title=\(title)"], environment: ["FINGERLOCK_SIMULATED_TOUCHES": "right-thumb"], stdin: "body\n")
                try #require(added.status == 0, "\(title): \(added.stderr)")
                let words = await completed(typed, mark: "B\(index)")
                #expect(words == ["fingerlock", "notes", "show", title], "bash: \(typed) for \(title.debugDescription) became \(words)")
            }
        }
        // Folder by folder, as pass completes: `ba` TAB gives the folder `bank/` (no space after
        // it), then `s` TAB the note in it.
        for title in ["bank/main", "bank/savings"] {
            let added = try await runner.run(
                ["notes", "add", "--title=\(title)"], environment: ["FINGERLOCK_SIMULATED_TOUCHES": "right-thumb"], stdin: "body\n")
            try #require(added.status == 0, "\(title): \(added.stderr)")
        }
        let folder = await completed("ba", mark: "FOLDER")
        #expect(folder == ["fingerlock", "notes", "show", "bank/"], "\(shell.name): \(folder)")
        let inFolder = await completed("ba", mark: "INFOLDER", tabs: 2, then: ["s"])
        #expect(inFolder == ["fingerlock", "notes", "show", "bank/savings"], "\(shell.name): \(inFolder)")

        // A title that starts with `-` would be an option there: it is offered only after `--`.
        let option = await completed("-r", mark: "OPTION", callsBinary: false)
        #expect(!option.contains("-rf"), "\(shell.name): \(option)")
        let afterEnd = await completed("-- -r", mark: "END")
        #expect(afterEnd == ["fingerlock", "notes", "show", "--", "-rf"], "\(shell.name): \(afterEnd)")

        let left = try FileManager.default.contentsOfDirectory(atPath: marks)
        #expect(left.isEmpty, "\(shell.name) ran a title: \(left)")
        session.send("exit\n")
        _ = await session.waitForExit(timeout: .seconds(10))
    }
}
