import FingerlockCLITestSupport
import Foundation
import Testing

/// `export --output` into new private files and `export --format markdown-dir`, which
/// `notes import --format markdown-dir` reads back whole; `import` without `--format`.
extension NotesImportTests {
    func mode(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    @Test func exportOutputIsANewPrivateFileUnlessForced() async throws {
        let runner = try await vault()
        #expect(try await runner.run(["notes", "add", "--title", "door"], environment: touch, stdin: "4711\n").status == 0)
        let file = scratch + "/export.json"
        let first = try await runner.run(["export", "--yes-plaintext", "--output", file], environment: touch)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.isEmpty)
        #expect(try mode(file) == 0o600)
        let exported = try String(contentsOfFile: file, encoding: .utf8)
        #expect(exported.contains("4711"))

        // An existing file is refused before the vault is unlocked (no touch is given here), and kept.
        try Data("mine\n".utf8).write(to: URL(fileURLWithPath: file))
        let again = try await runner.run(["export", "--yes-plaintext", "--output", file])
        #expect(again.status == 64)
        #expect(again.stderr == "fingerlock: \(file) already exists; fingerlock writes only a new file there. Nothing was changed.\n")
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "mine\n")
        let link = scratch + "/link.json"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: scratch + "/elsewhere.json")
        #expect(try await runner.run(["export", "--yes-plaintext", "--output", link]).status == 64)
        #expect(!FileManager.default.fileExists(atPath: scratch + "/elsewhere.json"))

        let forced = try await runner.run(["export", "--yes-plaintext", "--format", "markdown", "--output", file, "--force"], environment: touch)
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try String(contentsOfFile: file, encoding: .utf8).hasPrefix("# door\n"))
        #expect(try mode(file) == 0o600)
        #expect(try await runner.run(["export", "--yes-plaintext", "--force"]).status == 64)
    }

    @Test func aMarkdownDirectoryExportImportsBackWhole() async throws {
        let source = try await vault()
        for (body, title, tags) in [
            ("Door code 4711\n", "door", ["home"]),
            ("# Not the title\n\n\nZeile mit Ümlaut\n\tand a tab", "bank ✓ / C #", ["money", "home, and garden"]),
            ("---\nlooks like front matter\n---\n", "door", []), ("\n\nleading blank lines\n", ".hidden?", ["#kept"]),
        ] {
            let added = try await source.run(
                ["notes", "add", "--title", title] + tags.flatMap { ["--tag", $0] }, environment: touch, stdin: body)
            #expect(added.status == 0, "\(added.stderr)")
        }
        let before = try await export(source)
        #expect(before.count == 4)
        let directory = scratch + "/exported"
        let exported = try await source.run(
            ["export", "--format", "markdown-dir", "--output", directory, "--yes-plaintext"], environment: touch)
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect(exported.stdout == "Exported 4 notes to \(directory).\n")
        #expect(try mode(directory) == 0o700)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        #expect(files.count == 4)
        #expect(files.allSatisfy { $0.hasSuffix(".md") && !$0.hasPrefix(".") }, "\(files)")
        for file in files { #expect(try mode(directory + "/" + file) == 0o600) }
        // A directory that exists is never written into.
        let twice = try await source.run(["export", "--format", "markdown-dir", "--output", directory, "--yes-plaintext"])
        #expect(twice.status == 64)

        let target = try await vault()
        let imported = try await target.run(["notes", "import", "--format", "markdown-dir", directory], environment: touch)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout == "Imported 4 notes.\n")
        let byID = { (notes: [[String: String]]) in notes.sorted { ($0["id"] ?? "") < ($1["id"] ?? "") } }
        #expect(byID(try await export(target)) == byID(before))
    }

    @Test func importWithoutAFormatSaysWhichItDetected() async throws {
        let source = try await vault()
        #expect(try await source.run(["notes", "add", "--title", "door", "--tag", "home"], environment: touch, stdin: "4711\n").status == 0)
        let json = try await source.run(["export", "--yes-plaintext"], environment: touch)
        let file = try write(json.stdout, to: "detect/export.json")

        let target = try await vault()
        let fromFile = try await target.run(["notes", "import", file, "--dry-run"], environment: touch)
        #expect(fromFile.status == 0, "\(fromFile.stderr)")
        #expect(fromFile.stderr == "fingerlock: reading \(file) as --format json (detected; --format chooses another).\n")
        let fromStdin = try await target.run(["notes", "import"], environment: touch, stdin: json.stdout)
        #expect(fromStdin.status == 0, "\(fromStdin.stderr)")
        #expect(fromStdin.stderr.contains("reading stdin as --format json"))
        #expect(try await list(target).count == 1)
        // The name it was first given still reads the same.
        #expect(try await target.run(["notes", "import", "--format", "fingerlock-json", "--skip-existing", file], environment: touch).status == 0)

        let jrnl = try write(
            #"{"tags": {}, "entries": [{"title": "t", "body": "b", "date": "2024-01-02", "time": "03:04", "tags": []}]}"#, to: "detect/jrnl.json")
        let fromJrnl = try await target.run(["notes", "import", jrnl, "--dry-run"], environment: touch)
        #expect(fromJrnl.status == 0, "\(fromJrnl.stderr)")
        #expect(fromJrnl.stderr.contains("as --format jrnl-json"))

        _ = try write("# A note\nbody\n", to: "detect/notes/a.md")
        let fromDirectory = try await target.run(["notes", "import", scratch + "/detect/notes", "--dry-run"], environment: touch)
        #expect(fromDirectory.status == 0, "\(fromDirectory.stderr)")
        #expect(fromDirectory.stderr.contains("as --format markdown-dir"))
        #expect(fromDirectory.stdout.contains("A note"))

        let store = scratch + "/detect/store"
        _ = try write("someone@example.invalid\n", to: "detect/store/.gpg-id")
        let fromStore = try await target.run(["notes", "import", store, "--dry-run"], environment: touch)
        #expect(fromStore.stderr.contains("reading \(store) as --format pass"), "\(fromStore.stderr)")

        // Nothing to tell them apart: refused, naming the way out.
        try FileManager.default.createDirectory(atPath: scratch + "/detect/empty", withIntermediateDirectories: true)
        let empty = try await target.run(["notes", "import", scratch + "/detect/empty"], environment: touch)
        #expect(empty.status == 64)
        #expect(empty.stderr.contains("give --format"))
        let object = try write(#"{"notes": []}"#, to: "detect/other.json")
        let other = try await target.run(["notes", "import", object], environment: touch)
        #expect(other.status == 64)
        #expect(other.stderr.contains("give --format"))
        #expect(try await list(target).count == 1)
    }
}
