import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `fingerlock backup FILE` into a folder another user can write (issue 27, finding 4). SQLite opens
/// a database's side files (`-journal`, `-wal`, `-shm`) with O_CREAT and no O_EXCL, so a copy built
/// beside FILE wrote its pages into side files a watcher had created first. A real second user runs
/// the watcher: it waits on inotify for any `FILE.tmp-*` and at once creates those side files (mode
/// 0666, its own) and keeps them open, then reports every byte they received. Needs root (as CI
/// runs): it creates the user and switches to it; not skipped otherwise, it fails saying so.
@Suite(.timed, .serialized, .timeLimit(.minutes(3))) struct BackupSharedFolderTests {
    static let watcherUser = "flk-watcher"

    static let watcherScript = #"""
        import ctypes, json, os, select, struct, sys
        folder, name = sys.argv[1], sys.argv[2]
        libc = ctypes.CDLL(None, use_errno=True)
        fd = libc.inotify_init1(0)
        assert fd >= 0 and libc.inotify_add_watch(fd, folder.encode(), 0x100) >= 0  # IN_CREATE
        held = {}
        print("ready", flush=True)
        while True:
            ready, _, _ = select.select([fd, sys.stdin], [], [])
            if fd in ready:
                data = os.read(fd, 65536)
                offset = 0
                while offset < len(data):
                    _, _, _, length = struct.unpack_from("iIII", data, offset)
                    created = data[offset + 16:offset + 16 + length].rstrip(b"\0").decode()
                    offset += 16 + length
                    if not created.startswith(name + ".tmp-") or created.endswith(("-journal", "-wal", "-shm")):
                        continue
                    for suffix in ("-journal", "-wal", "-shm"):
                        path = os.path.join(folder, created + suffix)
                        try:
                            held[path] = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o666)
                            os.fchmod(held[path], 0o666)
                        except OSError:
                            pass
            if sys.stdin in ready and not sys.stdin.readline():
                break
        # Read through the descriptors: SQLite may have unlinked the files it wrote.
        received = {os.path.basename(p): len(os.pread(d, 1 << 24, 0)) for p, d in held.items()}
        print(json.dumps(received), flush=True)
        """#

    static func ensureWatcher() throws {
        try #require(geteuid() == 0, "BackupSharedFolderTests create a user and switch to it: run as root (CI does).")
        if getpwnam(watcherUser) != nil { return }
        let useradd = Process()
        useradd.executableURL = URL(fileURLWithPath: "/usr/sbin/useradd")
        useradd.arguments = ["--no-create-home", "--shell", "/usr/sbin/nologin", watcherUser]
        try useradd.run()
        useradd.waitUntilExit()
        try #require(getpwnam(watcherUser) != nil, "useradd \(watcherUser) failed")
    }

    @Test func aWatcherWhoCreatesTheSideFilesFirstReceivesNothingAndTheBackupRestores() async throws {
        try Self.ensureWatcher()
        let runner = BinaryRunner(extraEnvironment: ["FINGERLOCK_READER": "simulated"])
        let touch = ["FINGERLOCK_SIMULATED_TOUCHES": "right-thumb"]
        let passcode = "\(BinaryRunner.passcode)\n"
        try await runner.setPasscode()
        #expect(try await runner.enroll("right-thumb", touches: "right-thumb*5").status == 0)
        #expect(try await runner.run(["notes", "add", "--title", "kept"], environment: touch, stdin: "body").status == 0)

        // A folder like /tmp (sticky, everyone may write) that the watcher owns, so the kernel's
        // protected_regular setting, whatever it is, lets others open the watcher's files in it.
        let base = "/tmp/fl-share-\(UUID().uuidString)"
        #expect(mkdir(base, 0o755) == 0)
        defer { try? FileManager.default.removeItem(atPath: base) }
        let share = base + "/share"
        let watcher = try #require(getpwnam(Self.watcherUser)).pointee
        #expect(mkdir(share, 0o700) == 0)
        #expect(chown(share, watcher.pw_uid, watcher.pw_gid) == 0)
        #expect(chmod(share, 0o1777) == 0)
        let script = base + "/watch.py"
        try Self.watcherScript.write(toFile: script, atomically: false, encoding: .utf8)
        chmod(script, 0o644)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/runuser")
        process.arguments = ["-u", Self.watcherUser, "--", "/usr/bin/python3", script, share, "backup.flk"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let reader = output.fileHandleForReading
        let ready = String(decoding: reader.readData(ofLength: 6), as: UTF8.self)
        try #require(ready == "ready\n", "the watcher did not start: \(ready)")

        let target = share + "/backup.flk"
        let backup = try await runner.run(["backup", target, "--passcode-stdin"], stdin: passcode)
        #expect(backup.status == 0, "\(backup.stderr)")
        input.fileHandleForWriting.write(Data("\n".utf8))
        try input.fileHandleForWriting.close()
        let report = String(decoding: reader.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let received = try #require(
            try JSONSerialization.jsonObject(with: Data(report.utf8)) as? [String: Int], "watcher said: \(report)")
        // The watcher did act (it created side files beside the backup's temporary name)...
        #expect(!received.isEmpty, "the watcher saw no temporary file: the test did not test anything")
        // ...and not one byte of the copy went into them.
        #expect(received.values.allSatisfy { $0 == 0 }, "the watcher's side files received \(received)")

        // The backup is the root user's own 0600 file, and it restores.
        var info = stat()
        #expect(lstat(target, &info) == 0)
        #expect(info.st_uid == geteuid() && info.st_mode & 0o777 == 0o600, "mode \(String(info.st_mode & 0o777, radix: 8))")
        #expect(try await runner.run(["notes", "add", "--title", "later"], environment: touch, stdin: "body").status == 0)
        let restored = try await runner.run(["restore", target, "--yes", "--passcode-stdin"], stdin: passcode)
        #expect(restored.status == 0, "\(restored.stderr)")
        let listed = try await runner.run(["notes", "list"], environment: touch)
        #expect(listed.stdout.contains("kept") && !listed.stdout.contains("later"), "\(listed.stdout)")
    }
}
