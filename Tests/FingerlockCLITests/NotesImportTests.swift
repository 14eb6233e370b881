import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

/// `notes import` in process: fingerlock's own export round-trips, Markdown directories, jrnl's JSON
/// and a real password store (gpg and pass); all or nothing. What needs a process of its own (a
/// memory limit, gpg asking on a terminal): NotesImportEndToEndTests.
@Suite(.timed, .timeLimit(.minutes(3))) struct NotesImportTests: ImportSuite {
    let sources: ImportSources

    init() throws { sources = try ImportSources() }

    func runner(_ extra: [String: String]) -> InProcessCLI { InProcessCLI(extraEnvironment: extra) }

    @Test func anExportImportedIntoANewVaultExportsTheSameEveryField() async throws {
        let source = try await vault()
        for (body, title, tags) in [
            ("Door code 4711\n", "door", ["home"]), ("Zeile mit Ümlaut\n\tand a tab\n", "bank ✓", ["money", "home"]),
            ("no tags, no final newline", "plain", []),
        ] {
            let added = try await source.run(
                ["notes", "add", "--title", title] + tags.flatMap { ["--tag", $0] }, environment: touch, stdin: body)
            #expect(added.status == 0, "\(added.stderr)")
        }
        let exported = try await source.run(["export", "--format", "json", "--yes-plaintext"], environment: touch)
        let before = try await export(source)
        #expect(before.count == 3)

        let target = try await vault()
        let dry = try await target.run(["notes", "import", "--format", "fingerlock-json", "--dry-run"], environment: touch, stdin: exported.stdout)
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stdout.contains("bank ✓  #money #home"))
        #expect(dry.stdout.contains("Would import 3 notes; dry run, nothing was written."))
        #expect(!dry.stdout.contains("4711"))
        #expect(try await list(target).isEmpty)

        let imported = try await target.run(["notes", "import", "--format", "fingerlock-json"], environment: touch, stdin: exported.stdout)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout == "Imported 3 notes.\n")
        let after = try await export(target)
        // Export lists by creation time: imported dates are whole seconds, so ties fall back to the id.
        let byID = { (notes: [[String: String]]) in notes.sorted { ($0["id"] ?? "") < ($1["id"] ?? "") } }
        #expect(byID(after) == byID(before))
        #expect(Set(after.flatMap(\.keys)) == ["id", "title", "body", "tags", "created", "modified"])

        // The same ids again: refused whole, or the others with --skip-existing.
        let again = try await target.run(["notes", "import", "--format", "fingerlock-json"], environment: touch, stdin: exported.stdout)
        #expect(again.status == 64)
        #expect(again.stderr.contains("3 notes of the import are already in the vault"))
        #expect(again.stderr.contains("--skip-existing"))
        #expect(again.stderr.split(separator: "\n").count == 1)
        let file = try write(exported.stdout, to: "export.json")
        let skipping = try await target.run(["notes", "import", "--format", "fingerlock-json", "--skip-existing", file], environment: touch)
        #expect(skipping.status == 0, "\(skipping.stderr)")
        #expect(skipping.stdout == "Imported 0 notes (3 already in the vault, skipped).\n")
        #expect(try await list(target).count == 3)
    }

    @Test func aMalformedEntryOrFileInTheMiddleImportsNothing() async throws {
        let runner = try await vault()
        let stamp = "2024-01-02T03:04:05Z"
        func entry(_ id: String, body: Bool = true) -> String {
            #"{"id": "\#(id)", "title": "t", \#(body ? #""body": "b","# : "")"tags": [], "created": "\#(stamp)", "modified": "\#(stamp)"}"#
        }
        let ids = (0..<3).map { _ in UUID().uuidString.lowercased() }
        let missingBody = "[\(entry(ids[0])), \(entry(ids[1], body: false)), \(entry(ids[2]))]"
        let json = try await runner.run(["notes", "import", "--format", "fingerlock-json"], environment: touch, stdin: missingBody)
        #expect(json.status == 6)
        #expect(json.stderr.contains("entry 2") && json.stderr.contains("\"body\" is missing"))
        let twice = "[\(entry(ids[0])), \(entry(ids[0]))]"
        let duplicated = try await runner.run(["notes", "import", "--format", "fingerlock-json"], environment: touch, stdin: twice)
        #expect(duplicated.status == 6)
        #expect(duplicated.stderr.contains("holds the id \(ids[0]) twice"))
        #expect(try await runner.run(["notes", "import", "--format", "fingerlock-json"], environment: touch, stdin: "not json").status == 6)

        let directory = scratch + "/notes"
        _ = try write("# First\nbody one\n", to: "notes/a.md")
        try Data([0x23, 0x20, 0xff, 0xfe, 0x0a]).write(to: URL(fileURLWithPath: directory + "/b.md"))
        _ = try write("third\n", to: "notes/c.txt")
        let markdown = try await runner.run(["notes", "import", "--format", "markdown-dir", directory], environment: touch)
        #expect(markdown.status == 6)
        #expect(markdown.stderr == "fingerlock: \(directory)/b.md is not UTF-8 text; nothing was imported.\n")
        #expect(try await list(runner).isEmpty)
    }

    @Test func tagsNoCommandCouldNameAreNotImported() async throws {
        let runner = try await vault()
        let id = UUID().uuidString.lowercased()
        let stamp = "2024-01-02T03:04:05Z"
        let json =
            ##"[{"id": "\##(id)", "title": "t", "body": "b", "tags": ["", " ", "work", "Work", " home ", "#kept"], "created": "\##(stamp)", "modified": "\##(stamp)"}]"##
        #expect(try await runner.run(["notes", "import", "--format", "fingerlock-json"], environment: touch, stdin: json).status == 0)
        let shown = try await runner.run(["notes", "show", id, "--json"], environment: touch)
        let note = try #require(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any], "\(shown)")
        #expect(note["tags"] as? [String] == ["work", "home", "#kept"])
    }

    @Test func aMarkdownDirectoryGivesOneNotePerFile() async throws {
        let runner = try await vault()
        let directory = scratch + "/md"
        _ = try write("\n# Shopping list #\n\nmilk\neggs\n", to: "md/shopping.md")
        _ = try write("just text\nsecond line\n", to: "md/plain note.txt")
        _ = try write("## C# tips\nuse guard\n", to: "md/tips.markdown")
        _ = try write("ignored", to: "md/image.png")
        _ = try write("ignored", to: "md/.hidden.md")
        _ = try write("ignored", to: "md/sub/inner.md")
        let dry = try await runner.run(["notes", "import", "--format", "markdown-dir", directory, "--dry-run"], environment: touch)
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stdout == "plain note\nShopping list\nC# tips\nWould import 3 notes (2 other files ignored); dry run, nothing was written.\n")
        let imported = try await runner.run(["notes", "import", "--format", "markdown-dir", directory], environment: touch)
        #expect(imported.stdout == "Imported 3 notes (2 other files ignored).\n")
        let exported = try await export(runner)
        let bodies = Dictionary(uniqueKeysWithValues: exported.map { ($0["title"] ?? "", $0["body"] ?? "") })
        #expect(bodies == ["Shopping list": "milk\neggs\n", "plain note": "just text\nsecond line\n", "C# tips": "use guard\n"])

        #expect(try await runner.run(["notes", "import", "--format", "markdown-dir"], environment: touch).status == 64)
        #expect(try await runner.run(["notes", "import", "--format", "markdown-dir", scratch + "/none"], environment: touch).status == 5)
        #expect(try await runner.run(["notes", "import", "--format", "markdown-dir", directory + "/shopping.md"], environment: touch).status == 64)
        // markdown-dir brings ids now (front matter); jrnl does not.
        #expect(try await runner.run(["notes", "import", "--format", "jrnl-json", directory, "--skip-existing"], environment: touch).status == 64)
    }

    @Test func jrnlEntriesKeepTheirDateTimeAndTags() async throws {
        let runner = try await vault(["TZ": "UTC"])
        let journal = """
            {"tags": {"@work": 1, "@home": 1}, "entries": [
              {"title": "Called in sick.", "body": "Cleaned the house.", "date": "2012-03-29", "time": "09:00",
               "tags": ["@home"], "starred": false},
              {"title": "Shipped it!", "body": "", "date": "2024-11-05", "time": "17:45", "tags": ["@work", "#Work"], "starred": true}
            ]}
            """
        let imported = try await runner.run(["notes", "import", "--format", "jrnl-json"], environment: touch, stdin: journal)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout == "Imported 2 notes.\n")
        let notes = try await export(runner)
        let sick = try #require(notes.first { $0["title"] == "Called in sick." })
        #expect(sick["body"] == "Cleaned the house.")
        #expect(sick["created"] == "2012-03-29T09:00:00Z" && sick["modified"] == "2012-03-29T09:00:00Z")
        #expect(sick["tags"] == "home")
        let shipped = try #require(notes.first { $0["title"] == "Shipped it!" })
        #expect(shipped["created"] == "2024-11-05T17:45:00Z")
        #expect(shipped["tags"] == "work\u{1F}starred")

        let badDate = journal.replacingOccurrences(of: "2024-11-05", with: "2024-13-05")
        let refused = try await runner.run(["notes", "import", "--format", "jrnl-json"], environment: touch, stdin: badDate)
        #expect(refused.status == 6)
        #expect(refused.stderr.contains("entry 2"))
        #expect(try await runner.run(["notes", "import", "--format", "jrnl-json"], environment: touch, stdin: "[]").status == 6)
        #expect(try await list(runner).count == 2)
    }

    /// (JSON on stdin beside `--passcode-stdin`: NotesImportEndToEndTests, where stdin is a process's.)
    @Test func aMissingSourceOrAnUnknownFormatIsRefused() async throws {
        let runner = try await vault()
        let missing = try await runner.run(["notes", "import", "--format", "jrnl-json", scratch + "/absent.json"], environment: touch)
        #expect(missing.status == 5)
        let unknown = try await runner.run(["notes", "import", "--format", "evernote"], environment: touch)
        #expect(unknown.status == 64)
    }

    /// A `pass` stand-in: prints the entry's file (plain text here; the real one decrypts it), so
    /// the import must ask for `show -- NAME` in the store it listed; `broken` fails as gpg would.
    func fakePass() throws -> String {
        let bin = scratch + "/bin"
        let script = try write(
            """
            #!/bin/sh
            [ "$1" = show ] && [ "$2" = -- ] || { echo "unexpected: $*" >&2; exit 2; }
            case "$3" in *broken*) echo "gpg: decryption failed: No secret key" >&2; exit 2 ;; esac
            exec cat "$PASSWORD_STORE_DIR/$3.gpg"
            """, to: "bin/pass")
        chmod(script, 0o755)
        return bin
    }

    @Test func aPasswordStoreIsReadThroughPass() async throws {
        let bin = try fakePass()
        let store = scratch + "/store"
        _ = try write("hunter2\nuser: me\n", to: "store/web/github.com.gpg")
        _ = try write("s3cret\n", to: "store/email.gpg")
        _ = try write("deep\n", to: "store/work/vpn/office.gpg")
        _ = try write("not an entry", to: "store/.gpg-id")
        _ = try write("git object", to: "store/.git/objects/x.gpg")
        let runner = try await vault(["PATH": "\(bin):/usr/bin:/bin", "PASSWORD_STORE_DIR": store])
        let dry = try await runner.run(["notes", "import", "--format", "pass", "--dry-run"], environment: touch)
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(
            dry.stdout
                == "new      email\nnew      web/github.com  #web\nnew      work/vpn/office  #work #vpn\nWould import 3 new notes; dry run, nothing was written.\n"
        )
        #expect(!dry.stdout.contains("hunter2"))
        #expect(try await list(runner).isEmpty)

        let imported = try await runner.run(["notes", "import", "--format", "pass", store], environment: touch)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout == "Imported 3 new notes.\n")
        let notes = try await export(runner)
        #expect(notes.first { $0["title"] == "web/github.com" }?["body"] == "hunter2\nuser: me\n")
        #expect(notes.first { $0["title"] == "web/github.com" }?["tags"] == "web")
        #expect(notes.first { $0["title"] == "work/vpn/office" }?["tags"] == "work\u{1F}vpn")
    }

    /// A migration that takes weeks: the store imported again updates what changed there, skips what
    /// did not, adds what is new, and never makes a second copy.
    @Test func importingAPasswordStoreAgainUpdatesWhatChangedAndSkipsTheRest() async throws {
        let bin = try fakePass()
        let store = scratch + "/store"
        _ = try write("hunter2\nuser: me\n", to: "store/web/github.com.gpg")
        _ = try write("s3cret\n", to: "store/email.gpg")
        let runner = try await vault(["PATH": "\(bin):/usr/bin:/bin", "PASSWORD_STORE_DIR": store])
        #expect(try await runner.run(["notes", "import", "--format", "pass"], environment: touch).stdout == "Imported 2 new notes.\n")
        // A week later in pass: github's password changed, a bank entry came.
        _ = try write("hunter3\nuser: me\n", to: "store/web/github.com.gpg")
        _ = try write("1234\n", to: "store/bank.gpg")
        let dry = try await runner.run(["notes", "import", "--format", "pass", "--dry-run"], environment: touch)
        #expect(
            dry.stdout
                == "new      bank\nchanged  web/github.com  #web\nWould import 1 new note, 1 changed, 1 unchanged; dry run, nothing was written.\n")
        let again = try await runner.run(["notes", "import", "--format", "pass"], environment: touch)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout == "Imported 1 new note, 1 changed, 1 unchanged (the vault's versions of the changed ones are in their history).\n")
        let notes = try await export(runner)
        #expect(notes.count == 3)
        #expect(notes.first { $0["title"] == "web/github.com" }?["body"] == "hunter3\nuser: me\n")
        let history = try await runner.run(["notes", "history", "web/github.com", "--show", "1"], environment: touch)
        #expect(history.stdout.contains("hunter2"), "\(history.stdout)")
        // Once more, nothing changed: nothing is written; a tag given in the vault meanwhile stays.
        let tagged = try await runner.run(["notes", "edit", "email", "--add-tag", "personal"], environment: touch)
        #expect(tagged.status == 0, "\(tagged.stderr)")
        #expect(try await runner.run(["notes", "import", "--format", "pass"], environment: touch).stdout == "Nothing to import: 3 unchanged.\n")
        _ = try write("s3cret2\n", to: "store/email.gpg")
        #expect(try await runner.run(["notes", "import", "--format", "pass"], environment: touch).status == 0)
        #expect(try await export(runner).first { $0["title"] == "email" }?["tags"] == "personal")
        // Two notes with one title: the import cannot tell which to update, and imports nothing.
        #expect(try await runner.run(["notes", "add", "--title", "email"], environment: touch, stdin: "other\n").status == 0)
        _ = try write("1235\n", to: "store/bank.gpg")
        _ = try write("s3cret3\n", to: "store/email.gpg")
        let ambiguous = try await runner.run(["notes", "import", "--format", "pass"], environment: touch)
        #expect(ambiguous.status == 64)
        #expect(ambiguous.stderr.contains("2 notes are titled \"email\""), "\(ambiguous.stderr)")
        #expect(try await export(runner).first { $0["title"] == "bank" }?["body"] == "1234\n")
    }

    @Test func aPassEntryThatDoesNotDecryptImportsNothing() async throws {
        let bin = try fakePass()
        let store = scratch + "/store"
        _ = try write("one\n", to: "store/a.gpg")
        _ = try write("two\n", to: "store/b-broken.gpg")
        _ = try write("three\n", to: "store/c.gpg")
        let runner = try await vault(["PATH": "\(bin):/usr/bin:/bin"])
        let failed = try await runner.run(["notes", "import", "--format", "pass", store], environment: touch)
        #expect(failed.status == 6)
        // No terminal here, so the line says what to do should the key have a passphrase.
        #expect(
            failed.stderr
                == "fingerlock: pass show b-broken failed (gpg: decryption failed: No secret key); if its key has a passphrase, gpg had no terminal to ask for it: run `pass show b-broken` in a terminal first (gpg-agent then keeps the passphrase a while), or import from a terminal; nothing was imported.\n"
        )
        #expect(try await list(runner).isEmpty)

        // Checked before any touch: no store, no pass.
        let noStore = try await runner.run(["notes", "import", "--format", "pass", scratch + "/nothing"])
        #expect(noStore.status == 5)
        // A PATH without pass whatever this machine has installed (benchmarks install the real one).
        let empty = scratch + "/no-pass-bin"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let noPass = try await runner.run(["notes", "import", "--format", "pass", store], environment: ["PATH": empty])
        #expect(noPass.status == 6)
        #expect(noPass.stderr.contains("pass command is not on PATH"))
    }
}

#if canImport(Glibc)
    import Glibc
#endif
