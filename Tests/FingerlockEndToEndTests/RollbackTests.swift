import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Rows put back from an earlier state of the same vault (each authentic on its own), caught on
/// every read, edited in place with Python's sqlite3 as an attacker with a shell would.
@Suite(.timed, .timeLimit(.minutes(3))) struct RollbackTests {
    let runner = BinaryRunner(extraEnvironment: ["FINGERLOCK_READER": "simulated"])
    let touch = ["FINGERLOCK_SIMULATED_TOUCHES": "right-thumb"]

    /// Runs `python3 -c SCRIPT DATABASE` and returns its stdout, which goes through a file so that
    /// the wait sleeps instead of blocking a pool thread on the pipe.
    func sql(_ script: String) async throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        // Saved rows wait in a database of their own: an extra table in the vault is tampering too.
        let prelude = "import sqlite3, sys\ndb = sqlite3.connect(sys.argv[1])\ndb.execute(\"ATTACH ? AS s\", (sys.argv[2],))\n"
        process.arguments = [
            "-c", prelude + script + "\ndb.commit()", runner.dataDirectory + "/vault.sqlite", runner.dataDirectory + "-saved.sqlite",
        ]
        let output = runner.home + "/sql-\(UUID().uuidString).out"
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: output) }
        process.standardOutput = FileHandle(forWritingAtPath: output)
        try process.run()
        // The child has its own copy: the Process would keep this one open past its end.
        try? (process.standardOutput as? FileHandle)?.close()
        try await process.waitForExit()
        #expect(process.terminationStatus == 0)
        return (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
    }

    @Test func anOlderRevisionOfANotePutBackIsCaughtByShowEditAndRm() async throws {
        try await runner.setPasscode()
        #expect(try await runner.enroll("right-thumb", touches: "right-thumb*5").status == 0)
        let added = try await runner.run(["notes", "add", "--title", "old"], environment: touch, stdin: "the old body")
        let id = String(added.stdout.split(separator: " ")[1].dropLast())
        _ = try await sql(
            """
            db.execute("CREATE TABLE s.saved AS SELECT n.revision, n.header, b.body FROM notes n JOIN note_bodies b ON b.note = n.seq")
            """)
        #expect(try await runner.run(["notes", "edit", id, "--title", "new"], environment: touch, stdin: "the new body").status == 0)
        _ = try await sql(
            """
            (revision, header, body) = db.execute("SELECT revision, header, body FROM s.saved").fetchone()
            db.execute("UPDATE notes SET revision = ?, header = ?", (revision, header))
            db.execute("UPDATE note_bodies SET body = ?", (body,))
            """)
        for arguments in [["notes", "show", id], ["notes", "edit", id, "--title", "x"], ["notes", "rm", id, "--yes"]] {
            let result = try await runner.run(arguments, environment: touch, stdin: "y")
            #expect(result.status == 6, "\(arguments): \(result.stdout) \(result.stderr)")
            #expect(!result.stdout.contains("the old body"))
        }
    }

    @Test func anOlderSettingPutBackIsTamperingForVerifyAndTouchUnlock() async throws {
        try await runner.setPasscode()
        #expect(try await runner.enroll("right-thumb", touches: "right-thumb*5").status == 0)
        let set = try await runner.run(["config", "set", "max-tries", "10", "--passcode-stdin"], stdin: "\(BinaryRunner.passcode)\n")
        #expect(set.status == 0, "\(set.stderr)")
        _ = try await sql(
            """
            db.execute("CREATE TABLE s.saved AS SELECT key, revision, sealed FROM settings")
            """)
        #expect(try await runner.run(["config", "set", "max-tries", "2", "--passcode-stdin"], stdin: "\(BinaryRunner.passcode)\n").status == 0)
        _ = try await sql(
            """
            db.execute("DELETE FROM settings")
            db.execute("INSERT INTO settings SELECT key, revision, sealed FROM s.saved")
            """)
        let verify = try await runner.run(["verify"], environment: touch)
        #expect(verify.status == 6, "\(verify.stderr)")
        let list = try await runner.run(["notes", "trash"], environment: touch)
        #expect(list.status == 6, "\(list.stderr)")
    }
}
