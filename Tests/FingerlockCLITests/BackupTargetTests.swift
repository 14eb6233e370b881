import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `fingerlock backup FILE` in process: an existing file is kept unless `--force`, only
/// regular files are replaced, and a destination that cannot work is refused before any touch or
/// passcode is asked for.
@Suite(.timed, .timeLimit(.minutes(3))) struct BackupTargetTests {
    let runner = InProcessCLI(extraEnvironment: ["FINGERLOCK_READER": "simulated"])
    let touch = ["FINGERLOCK_SIMULATED_TOUCHES": "right-thumb"]

    @Test func anExistingFileNeedsForce() async throws {
        try await runner.setPasscode()
        #expect(try await runner.enroll("right-thumb", touches: "right-thumb*5").status == 0)
        #expect(try await runner.run(["notes", "add", "--title", "one"], environment: touch, stdin: "body").status == 0)
        let target = runner.dataDirectory + "-backup"
        try Data("precious".utf8).write(to: URL(fileURLWithPath: target))
        // No touch is scripted: the refusal comes before the reader or the passcode is asked.
        let refused = try await runner.run(["backup", target])
        #expect(refused.status == 64)
        #expect(refused.stderr == "fingerlock: \(target) already exists; use --force to replace it.\n")
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "precious")
        let forced = try await runner.run(["backup", target, "--force"], environment: touch)
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(forced.stdout == "Backed up 1 note to \(target).\n")
        #expect(try await runner.run(["notes", "add", "--title", "two"], environment: touch, stdin: "body").status == 0)
        let second = target + "-2"
        let plural = try await runner.run(["backup", second], environment: touch)
        #expect(plural.stdout == "Backed up 2 notes to \(second).\n")
    }

    @Test func directoriesSpecialFilesAndMissingDirectoriesAreRefusedUpFront() async throws {
        try await runner.setPasscode()
        let fifo = runner.dataDirectory + "-fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        let cases: [(arguments: [String], message: String)] = [
            (["backup", fifo, "--force"], "\(fifo) is not a regular file; a backup never replaces it."),
            (["backup", runner.dataDirectory], "\(runner.dataDirectory) is a directory; give a file name for the backup."),
            (["backup", "/nonexistent-dir/b.fl"], "Cannot write /nonexistent-dir/b.fl: the directory /nonexistent-dir does not exist."),
            (
                ["backup", runner.dataDirectory + "/vault.sqlite", "--force"],
                "\(runner.dataDirectory)/vault.sqlite is inside the vault's data directory; write the backup somewhere else."
            ),
        ]
        for (arguments, message) in cases {
            let result = try await runner.run(arguments)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.stderr == "fingerlock: \(message)\n")
        }
        var info = stat()
        #expect(lstat(fifo, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
    }

    @Test func aFailedWriteNamesTheFileAskedForNeverATemporaryOne() async throws {
        try await runner.setPasscode()
        let result = try await runner.run(["backup", "/proc/self/b.fl", "--passcode-stdin"], stdin: "\(InProcessCLI.passcode)\n")
        #expect(result.status == 6)
        #expect(result.stderr.hasPrefix("fingerlock: Cannot write /proc/self/b.fl: "))
        #expect(!result.stderr.contains(".tmp-"))
    }
}
