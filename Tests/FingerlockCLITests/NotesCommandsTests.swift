import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Notes commands in process: add, list, show, search, edit and rm by touch, id starts, backup and
/// restore, export, rekey (editors, terminals and stdin handling: NotesEndToEndTests).
@Suite(.timed, .timeLimit(.minutes(3))) struct NotesCommandsTests {
    let runner: InProcessCLI
    let runtimeDirectory: String
    let touch = ["FINGERLOCK_SIMULATED_TOUCHES": "right-thumb"]

    init() async throws {
        runtimeDirectory = "/dev/shm/fl-runtime-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: runtimeDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        runner = InProcessCLI(extraEnvironment: ["FINGERLOCK_READER": "simulated", "XDG_RUNTIME_DIR": runtimeDirectory])
        try await runner.setPasscode()
        #expect(try await runner.enroll("right-thumb", touches: "right-thumb*5").status == 0)
    }

    func add(_ body: String, title: String? = nil, tags: [String] = []) async throws -> String {
        var arguments = ["notes", "add"]
        if let title { arguments += ["--title", title] }
        for tag in tags { arguments += ["--tag", tag] }
        let result = try await runner.run(arguments, environment: touch, stdin: body)
        #expect(result.status == 0, "\(result.stderr)")
        return String(result.stdout.split(separator: " ")[1].dropLast())
    }

    func list(_ extra: [String] = []) async throws -> [[String: Any]] {
        let result = try await runner.run(["notes", "list", "--json"] + extra, environment: touch)
        #expect(result.status == 0, "\(result.stderr)")
        return try #require(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
    }

    @Test func addListShowSearchEditAndRemoveByTouch() async throws {
        let first = try await add("Door code is 4711\nsecond line\n", tags: ["home"])
        _ = try await add("Bank PIN hint: birthday", title: "Bank", tags: ["money", "home"])
        let notes = try await list()
        #expect(notes.count == 2)
        #expect(Set(notes.compactMap { $0["title"] as? String }) == ["Door code is 4711", "Bank"])
        #expect(notes.allSatisfy { Set($0.keys) == ["id", "title", "tags", "created", "modified"] })
        #expect(notes.allSatisfy { ($0["created"] as? String)?.hasSuffix("Z") == true })
        #expect(try await list(["--tag", "money"]).count == 1)

        let show = try await runner.run(["notes", "show", first], environment: touch)
        #expect(show.status == 0)
        #expect(show.stdout.contains("Door code is 4711\nsecond line\n"))
        #expect(show.stdout.contains("#home"))

        let search = try await runner.run(["notes", "search", "PIN", "--json"], environment: touch)
        let found = try #require(JSONSerialization.jsonObject(with: Data(search.stdout.utf8)) as? [[String: Any]])
        #expect(found.map { $0["title"] as? String } == ["Bank"])
        let miss = try await runner.run(["notes", "search", "nothing like this"], environment: touch)
        #expect(miss.status == 1)
        #expect(miss.stderr.contains("No note contains"))

        let edit = try await runner.run(
            ["notes", "edit", first, "--title", "Door", "--tag", "house"], environment: touch, stdin: "Door code is 0815\n")
        #expect(edit.status == 0, "\(edit.stderr)")
        let edited = try await runner.run(["notes", "show", first], environment: touch)
        #expect(edited.stdout.hasPrefix("Door\n"))
        #expect(edited.stdout.contains("Door code is 0815"))
        #expect(edited.stdout.contains("#house"))

        #expect(try await runner.run(["notes", "rm", first], environment: touch).status == 64)
        let removed = try await runner.run(["notes", "rm", first, "--yes"], environment: touch)
        #expect(removed.status == 0)
        #expect(try await runner.run(["notes", "show", first], environment: touch).status == 5)
        #expect(try await list().count == 1)
    }

    @Test func idPrefixesMustBeUniqueAndValid() async throws {
        _ = try await add("one")
        _ = try await add("two")
        #expect(try await runner.run(["notes", "show", ""], environment: touch).status == 64)
        // Not an id, and no title like it (a name may be a title since issue 28): not found.
        #expect(try await runner.run(["notes", "show", "zz"], environment: touch).status == 5)
        let ids = try await list().compactMap { $0["id"] as? String }
        let missing = String(ids[0].prefix(1) == "f" ? "0" : "f") + "0000000"
        let none = try await runner.run(["notes", "show", missing], environment: touch)
        #expect(none.status == 5 || ids.contains { $0.hasPrefix(missing) })
    }

    @Test func backupAndRestoreRoundTrip() async throws {
        _ = try await add("keep me", title: "kept")
        let backup = runner.dataDirectory + "-backup.sqlite"
        #expect(try await runner.run(["backup", backup], environment: touch).status == 0)
        var info = stat()
        stat(backup, &info)
        #expect(info.st_mode & 0o777 == 0o600)
        _ = try await add("added later", title: "later")
        #expect(try await list().count == 2)
        // Restore replaces the passcode, fingers and settings too: never by touch alone.
        #expect(try await runner.run(["restore", backup, "--yes"], environment: touch).status == 8)
        let passcode = "\(InProcessCLI.passcode)\n"
        #expect(try await runner.run(["restore", backup, "--passcode-stdin"], environment: touch, stdin: passcode).status == 64)
        let restored = try await runner.run(["restore", backup, "--yes", "--passcode-stdin"], environment: touch, stdin: passcode)
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(try await list().compactMap { $0["title"] as? String } == ["kept"])
        #expect(try await runner.run(["restore", "/nonexistent/backup", "--yes"], environment: touch).status == 5)
        // Not a file: refused at once (a FIFO blocked forever, /dev/zero read until memory ran out).
        let fifo = runner.dataDirectory + "-fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        defer { unlink(fifo) }
        for special in [fifo, "/dev/zero"] {
            let refused = try await runner.run(
                ["restore", special, "--yes", "--passcode-stdin"], environment: touch, stdin: passcode, timeout: .seconds(30))
            #expect(refused.status == 6, "\(special): \(refused.stderr)")
            #expect(refused.stderr.contains("\(special) is not a regular file"), "\(refused.stderr)")
        }
        // A link to a backup (`latest.flb -> ...`) is a backup.
        let link = runner.dataDirectory + "-latest.flb"
        #expect(symlink(backup, link) == 0)
        defer { unlink(link) }
        let viaLink = try await runner.run(["restore", link, "--yes", "--passcode-stdin"], environment: touch, stdin: passcode)
        #expect(viaLink.status == 0, "\(viaLink.stderr)")
        // A fresh machine: restore into an empty data directory with the backup's passcode — after
        // a typo, which must leave nothing behind that blocks the next try.
        let fresh = InProcessCLI(extraEnvironment: ["FINGERLOCK_READER": "simulated"])
        let typo = try await fresh.run(["restore", backup, "--yes", "--passcode-stdin"], stdin: "typo passcode\n")
        #expect(typo.status == 1)
        #expect(!FileManager.default.fileExists(atPath: fresh.dataDirectory + "/vault.sqlite"))
        let into = try await fresh.run(["restore", backup, "--yes", "--passcode-stdin"], stdin: "\(InProcessCLI.passcode)\n")
        #expect(into.status == 0, "\(into.stderr)")
        let listed = try await fresh.run(["notes", "list", "--json", "--passcode-stdin"], stdin: "\(InProcessCLI.passcode)\n")
        #expect(listed.stdout.contains("kept"))
    }

    @Test func exportNeedsAnExplicitConfirmation() async throws {
        _ = try await add("exported body", title: "exported")
        let refused = try await runner.run(["export"], environment: touch)
        #expect(refused.status == 64)
        #expect(refused.stdout.isEmpty)
        let json = try await runner.run(["export", "--yes-plaintext"], environment: touch)
        let notes = try #require(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(notes.first?["body"] as? String == "exported body")
        let markdown = try await runner.run(["export", "--format", "markdown", "--yes-plaintext"], environment: touch)
        #expect(markdown.stdout.hasPrefix("# exported\n"))
    }

    @Test func rekeyKeepsNotesAndShowsANewRecoveryKey() async throws {
        _ = try await add("still here", title: "survivor")
        let rekey = try await runner.run(["rekey", "--passcode-stdin"], stdin: "\(InProcessCLI.passcode)\n")
        #expect(rekey.status == 0, "\(rekey.stderr)")
        #expect(rekey.stdout.contains("Recovery key (shown once"))
        #expect(try await list().first?["title"] as? String == "survivor")
    }
}
