import FingerlockTestSupport
import Foundation
import Testing

@testable import FingerlockCLI

#if canImport(Glibc)
    import Glibc
#endif

/// Which editor `$EDITOR` really is, and the argv it is started with.
@Suite(.timed) struct EditorLaunchTests {
    let bin: String
    let vimSettings = "set noswapfile nobackup nowritebackup noundofile viminfo="
    let nvimSettings = "set noswapfile nobackup nowritebackup noundofile shada="

    /// A directory of stand-in editors named as distributions install them. Each one records
    /// its argv, one argument per line, in `$ARGV_LOG`.
    init() throws {
        bin = FileManager.default.temporaryDirectory.appendingPathComponent("fl-editors-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: bin + "/real", withIntermediateDirectories: true)
        for name in ["vim.tiny", "vim.basic", "nvim", "nano", "emacs-nox", "emacs", "emacsclient", "nvi", "busybox", "micro", "emacs29"] {
            let path = bin + "/real/" + name
            try "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done > \"$ARGV_LOG\"\n".write(toFile: path, atomically: true, encoding: .utf8)
            chmod(path, 0o755)
        }
        // Debian's alternatives: two hops, as /usr/bin/vi -> /etc/alternatives/vi -> /usr/bin/vim.tiny.
        try FileManager.default.createSymbolicLink(atPath: bin + "/alternative-vi", withDestinationPath: bin + "/real/vim.tiny")
        for (link, target) in [
            ("vi", bin + "/alternative-vi"), ("vim", "real/vim.basic"), ("editor", "real/nano"), ("rnano", "real/nano"),
            ("emacs", "real/emacs-nox"), ("nvim", "real/nvim"), ("nano", "real/nano"), ("ex-vi", "real/nvi"),
            ("bbvi", "real/busybox"), ("emacsclient", "real/emacsclient"), ("micro", "real/micro"), ("emacs29", "real/emacs29"),
        ] {
            try FileManager.default.createSymbolicLink(atPath: bin + "/" + link, withDestinationPath: target)
        }
    }

    func launch(_ command: String) -> EditorLaunch {
        EditorLaunch(command: command, environment: ["PATH": "/nonexistent:" + bin])
    }

    @Test(arguments: [
        ("vi", EditorLaunch.Family.vim), ("vim", .vim), ("editor", .nano), ("rnano", .nano), ("nano", .nano),
        ("emacs", .emacs), ("emacs29", .emacs), ("nvim", .neovim),
    ])
    func knownEditorsAreFoundThroughTheirLinks(command: String, family: EditorLaunch.Family) {
        #expect(launch(command).family == family)
        #expect(launch(command).notice == nil)
    }

    @Test(arguments: ["ex-vi", "bbvi", "emacsclient", "micro", "not-installed", "$HOME/vim", "FOO=1 vim", "~/vim", "vim;rm", "''"])
    func anythingElseIsUnknownAndSaysSo(command: String) throws {
        let launched = launch(command)
        #expect(launched.family == nil)
        let notice = try #require(launched.notice)
        #expect(notice.contains("outside fingerlock's control"))
        #expect(!notice.contains("\n"))
        // Unknown commands run exactly as before.
        #expect(launched.shellCommand == "exec \(command) \"$1\"")
    }

    @Test func theNoticeShowsAControlCharacterInTheNameEscaped() {
        #expect(launch("ed\u{1B}[2J").notice?.contains("ed\\u{1B}[2J") == true)
    }

    @Test func programWordsAreUnquotedAsTheShellWould() throws {
        #expect(EditorLaunch.programWord("vim")?.word == "vim")
        #expect(EditorLaunch.programWord("  vim -u x")?.word == "vim")
        #expect(EditorLaunch.programWord("  vim -u x")?.rest == " -u x")
        #expect(EditorLaunch.programWord("'/opt/my editor/vim' -n")?.word == "/opt/my editor/vim")
        #expect(EditorLaunch.programWord("\"/opt/my editor/vim\"")?.word == "/opt/my editor/vim")
        #expect(EditorLaunch.programWord("/opt/my\\ editor/vim")?.word == "/opt/my editor/vim")
        #expect(EditorLaunch.programWord("\"$EDITOR_BIN\"") == nil)
        #expect(EditorLaunch.programWord("'unterminated") == nil)
        #expect(EditorLaunch.programWord("") == nil)
    }

    /// What the editor really receives, through `/bin/sh` as fingerlock runs it.
    func argv(_ command: String, file: String = "/dev/shm/x/note.md") async throws -> [String] {
        let launched = launch(command)
        let log = bin + "/argv-\(UUID().uuidString)"
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        shell.arguments = ["-c", launched.shellCommand, "editor", file]
        shell.environment = ["PATH": "/nonexistent:" + bin, "ARGV_LOG": log]
        try shell.run()
        try await shell.waitForExit()
        #expect(shell.terminationStatus == 0)
        return try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    @Test func vimAndViThatIsVimGetNoSwapViminfoUndoOrBackupAheadOfTheUsersArguments() async throws {
        let expected = ["-n", "-i", "NONE", "--cmd", vimSettings, "-c", vimSettings]
        #expect(try await argv("vim") == expected + ["/dev/shm/x/note.md"])
        #expect(try await argv("vi -u ~/.vimrc.notes --") == expected + ["-u", "~/.vimrc.notes", "--", "/dev/shm/x/note.md"])
        #expect(try await argv("'\(bin)/vim' -c 'set tw=72'") == expected + ["-c", "set tw=72", "/dev/shm/x/note.md"])
    }

    @Test func neovimGetsNoShadaSwapUndoOrBackup() async throws {
        #expect(try await argv("nvim") == ["-n", "-i", "NONE", "--cmd", nvimSettings, "-c", nvimSettings, "/dev/shm/x/note.md"])
    }

    @Test func nanoRunsRestricted() async throws {
        #expect(try await argv("editor --nohelp") == ["--restricted", "--nohelp", "/dev/shm/x/note.md"])
        #expect(try await argv("rnano") == ["--restricted", "/dev/shm/x/note.md"])
    }

    @Test func emacsGetsBackupsAutoSaveLocksAndHistoryOff() async throws {
        let arguments = try await argv("emacs -nw")
        #expect(arguments.count == 4)
        #expect(arguments.first == "--eval")
        for setting in [
            "make-backup-files nil", "auto-save-default nil", "create-lockfiles nil", "auto-save-list-file-prefix nil", "(savehist-mode -1)",
        ] {
            #expect(arguments[1].contains(setting))
        }
        #expect(arguments.suffix(2) == ["-nw", "/dev/shm/x/note.md"])
    }

    @Test func aFileNameWithQuotesReachesTheEditorIntact() async throws {
        #expect(try await argv("nano", file: "/dev/shm/it's \"here\"/note.md").last == "/dev/shm/it's \"here\"/note.md")
    }
}
