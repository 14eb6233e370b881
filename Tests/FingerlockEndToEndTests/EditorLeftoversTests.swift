import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

@testable import FingerlockCLI

#if canImport(Glibc)
    import Glibc
#endif

/// The real editors, driven by keystrokes in a pseudo-terminal, with a home directory whose
/// configuration turns on every file they can keep (history, swap, undo, backups, auto-saves): after
/// deleting a line, typing, searching and saving, no file outside the vault may hold the note's text.
/// An editor that is not installed is skipped.
@Suite(.timed, .timeLimit(.minutes(3))) struct EditorLeftoversTests {
    let runner: BinaryRunner
    let home: String
    let runtimeDirectory: String
    let deleted = "DELETED-\(UUID().uuidString.prefix(8))"
    let typed = "TYPED-\(UUID().uuidString.prefix(8))"
    let touch = ["FINGERLOCK_SIMULATED_TOUCHES": "right-thumb"]

    init() async throws {
        runtimeDirectory = "/dev/shm/fl-runtime-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: runtimeDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        runner = BinaryRunner(extraEnvironment: ["FINGERLOCK_READER": "simulated", "XDG_RUNTIME_DIR": runtimeDirectory])
        home = try #require(runner.environment["HOME"])
        try await runner.setPasscode()
        #expect(try await runner.enroll("right-thumb", touches: "right-thumb*5").status == 0)
    }

    func write(_ text: String, to relativePath: String) throws {
        let path = home + "/" + relativePath
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    func makeDirectories(_ names: [String]) throws {
        for name in names { try FileManager.default.createDirectory(atPath: home + "/" + name, withIntermediateDirectories: true) }
    }

    /// Adds a note, edits it with `editor` driven by `keys`, and checks the edit was saved and left
    /// nothing behind.
    func edit(with editor: String, alsoScanning extra: [String] = [], keys: (PseudoTerminalSession) async -> Void) async throws {
        let added = try await runner.run(["notes", "add", "--title", "Leftovers"], environment: touch, stdin: "keep this\n\(deleted) line\n")
        #expect(added.status == 0, "\(added.stderr)")
        let id = String(try #require(added.stdout.split(separator: " ").dropFirst().first).dropLast())
        let session = try PseudoTerminalSession(
            arguments: ["notes", "edit", id],
            environment: runner.environment.merging(["EDITOR": editor, "TERM": "xterm", "LINES": "24", "COLUMNS": "80"].merging(touch) { $1 }) { $1 })
        await keys(session)
        #expect(await session.waitForExit(timeout: .seconds(60)) == 0)
        #expect(!session.output.contains("outside fingerlock's control"))
        let shown = try await runner.run(["notes", "show", id], environment: touch)
        #expect(shown.stdout.contains(typed), "the edit was not saved: \(shown.stdout)")
        #expect(!shown.stdout.contains(deleted))
        for directory in [home, runtimeDirectory] + extra {
            for name in (try? FileManager.default.subpathsOfDirectory(atPath: directory)) ?? [] {
                let data = FileManager.default.contents(atPath: directory + "/" + name) ?? Data()
                let text = String(decoding: data, as: UTF8.self)
                #expect(!text.contains(deleted) && !text.contains(typed), "\(editor) left the note's text in \(directory)/\(name)")
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: runtimeDirectory).filter { $0.hasPrefix("fingerlock-edit") }.isEmpty)
    }

    @Test func vimKeepsNoViminfoSwapUndoOrBackup() async throws {
        try makeDirectories([".vim/swap", ".vim/undo", ".vim/backup"])
        try write(
            """
            set nocompatible
            set swapfile directory=~/.vim/swap// updatecount=1
            set undofile undodir=~/.vim/undo
            set backup writebackup backupdir=~/.vim/backup
            set viminfo='100,<1000,s100,h viminfofile=~/.viminfo
            """, to: ".vimrc")
        try await edit(with: "vim") { session in
            await session.expect("Leftovers")
            // Delete the line, type a new one, search, save and quit.
            session.send("G")
            session.send("dd")
            session.send("o\(typed) line\u{1B}")
            session.send("/\(deleted)\r")
            session.send(":wq\r")
        }
    }

    @Test func neovimKeepsNoShadaSwapUndoOrBackup() async throws {
        try makeDirectories(["nvim/swap", "nvim/undo", "nvim/backup"])
        try write(
            """
            set swapfile directory=~/nvim/swap// updatecount=1
            set undofile undodir=~/nvim/undo
            set backup writebackup backupdir=~/nvim/backup
            set shada='100,<1000,s100,h
            """, to: ".config/nvim/init.vim")
        try await edit(with: "nvim") { session in
            await session.expect("Leftovers")
            session.send("G")
            session.send("dd")
            session.send("o\(typed) line\u{1B}")
            session.send("/\(deleted)\r")
            session.send(":wq\r")
        }
    }

    @Test func nanoKeepsNoHistoryPositionsOrBackups() async throws {
        try makeDirectories(["nano-backups"])
        // Everything is asked for on the command line, after fingerlock's options: for root, nano
        // ignores $HOME (and so a nanorc there) and keeps its history in the password file's home,
        // which is scanned too. (Debian's /etc/nanorc turns the search history on by default.)
        let nanoHome = geteuid() == 0 ? String(cString: getpwuid(0).pointee.pw_dir) : home
        try await edit(
            with: "nano --historylog --positionlog --backup --backupdir=\(home)/nano-backups",
            alsoScanning: [nanoHome + "/.local/share/nano", nanoHome + "/.nano"]
        ) { session in
            await session.expect("Leftovers")
            // M-/ to the end, up to the line, cut it (^K), type, search (^W), write (^O) and exit (^X).
            session.send("\u{1B}/")
            session.send("\u{1B}[A")
            session.send("\u{0B}")
            session.send("\(typed) line\r")
            session.send("\u{17}")
            await session.expect("Search")
            session.send("\(typed)\r")
            session.send("\u{0F}")
            await session.expect("File Name to Write")
            session.send("\r")
            await session.expect("Wrote")
            session.send("\u{18}")
        }
    }

    @Test func emacsKeepsNoBackupsAutoSavesOrHistory() async throws {
        try makeDirectories(["emacs-backups", "emacs-autosaves"])
        try write(
            """
            (setq backup-directory-alist '(("." . "\(home)/emacs-backups"))
                  make-backup-files t backup-by-copying t version-control t
                  auto-save-file-name-transforms '((".*" "\(home)/emacs-autosaves/" t))
                  auto-save-interval 5 auto-save-timeout 1
                  savehist-additional-variables '(search-ring kill-ring))
            (savehist-mode 1)
            """, to: ".emacs")
        try await edit(with: "emacs -nw") { session in
            await session.expect("Leftovers")
            // M-> to the end, up a line, kill it (C-a C-k C-k), type, search (C-s), save (C-x C-s), quit (C-x C-c).
            session.send("\u{1B}>")
            session.send("\u{10}\u{01}\u{0B}\u{0B}")
            session.send("\(typed) line\n")
            session.send("\u{13}\(typed)\r")
            session.send("\u{18}\u{13}")
            await session.expect("Wrote")
            session.send("\u{18}\u{03}")
        }
    }
}
