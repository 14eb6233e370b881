import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `fingerlock sync` through the built binary: two data directories as two machines, a real bare
/// git repository between them, the user's git.
@Suite(.timed, .timeLimit(.minutes(5))) struct SyncEndToEndTests {
    let a = BinaryRunner(extraEnvironment: ["FINGERLOCK_READER": "simulated"])
    let b = BinaryRunner(extraEnvironment: ["FINGERLOCK_READER": "simulated"])
    let bare: String
    let passcodeB = "walnut desk 77"

    init() throws {
        bare = a.home + "/remote.git"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/git")
        process.arguments = ["init", "--quiet", "--bare", bare]
        try process.run()
        process.waitUntilExit()
    }

    func passcode(_ runner: BinaryRunner) -> String { runner === a ? BinaryRunner.passcode : passcodeB }

    /// Runs a command that takes the passcode on stdin.
    func run(_ runner: BinaryRunner, _ arguments: [String]) async throws -> BinaryRunner.Result {
        try await runner.run(arguments + ["--passcode-stdin"], stdin: passcode(runner) + "\n", timeout: .seconds(120))
    }

    /// Adds a note whose body comes on stdin (the passcode then on descriptor 3).
    func add(_ runner: BinaryRunner, _ title: String, _ body: String) async throws {
        let file = runner.home + "/passcode"
        try (passcode(runner) + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let added = try await runner.run(["notes", "add", "--title", title, "--passcode-fd", "3"], stdin: body, descriptorsFromFiles: [3: file])
        #expect(added.status == 0, "\(added.stderr)")
    }

    /// Sets up a with notes and sync, and joins b with the recovery key; returns b's join output.
    func setUpBoth() async throws -> BinaryRunner.Result {
        let recoveryKey = try await a.setPasscode()
        try await add(a, "bank/visa", "pin 1234\n")
        try await add(a, "mail", "pw\n")
        let initialized = try await run(a, ["sync", "init", bare, "--name", "desktop"])
        #expect(initialized.status == 0, "\(initialized.stderr)")
        #expect(initialized.stdout.contains("sent 2 changes"), "\(initialized.stdout)")
        let joined = try await b.run(
            ["sync", "join", bare, "--name", "laptop", "--passcode-stdin"], stdin: "\(recoveryKey)\n\(passcodeB)\n\(passcodeB)\n",
            timeout: .seconds(120))
        #expect(joined.status == 0, "\(joined.stderr)")
        return joined
    }

    func bodies(_ runner: BinaryRunner) async throws -> String {
        let exported = try await runner.run(["export", "--yes-plaintext", "--passcode-stdin"], stdin: passcode(runner) + "\n")
        #expect(exported.status == 0, "\(exported.stderr)")
        return exported.stdout
    }

    @Test func aSecondMachineJoinsWithTheRecoveryKeyAndEditsTravelBothWays() async throws {
        let joined = try await setUpBoth()
        #expect(joined.stdout.contains("Joined: 2 notes arrived"), "\(joined.stdout)")
        #expect(try await bodies(b).contains("pin 1234"))
        try await add(b, "from laptop", "hello\n")
        #expect(try await run(b, ["sync"]).status == 0)
        let synced = try await run(a, ["sync", "--json"])
        #expect(synced.status == 0, "\(synced.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(synced.stdout.utf8)) as? [String: Any]
        #expect(report?["added"] as? Int == 1)
        #expect(try await bodies(a).contains("hello"))
        let status = try await run(a, ["sync", "status", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
        #expect(object?["ahead"] as? Int == 0)
        #expect(object?["behind"] as? Int == 0)
        #expect(object?["deviceName"] as? String == "desktop")
        let devices = object?["devices"] as? [[String: Any]] ?? []
        #expect(Set(devices.compactMap { $0["name"] as? String }) == ["desktop", "laptop"])
        // The git history names nobody.
        let log = Process()
        log.executableURL = URL(fileURLWithPath: "/usr/bin/git")
        log.arguments = ["--git-dir=" + bare, "log", "--format=%an %ae %cn %ce", "main"]
        let pipe = Pipe()
        log.standardOutput = pipe
        try log.run()
        log.waitUntilExit()
        let authors = Set(String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n"))
        #expect(authors == ["fingerlock fingerlock@invalid fingerlock fingerlock@invalid"])
    }

    @Test func withAutoOnEveryChangeIsFollowedByASync() async throws {
        _ = try await setUpBoth()
        let on = try await run(a, ["sync", "auto", "on"])
        #expect(on.status == 0, "\(on.stderr)")
        let file = a.home + "/passcode"
        try (BinaryRunner.passcode + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let added = try await a.run(
            ["notes", "add", "--title", "auto", "--passcode-fd", "3"], stdin: "synced at once\n", descriptorsFromFiles: [3: file])
        #expect(added.status == 0)
        #expect(added.stderr.contains("Synced with"), "\(added.stderr)")
        #expect(added.stderr.contains("sent 1 change"), "\(added.stderr)")
        // A listing is no change: nothing follows it.
        let listed = try await a.run(["notes", "trash", "--passcode-fd", "3"], descriptorsFromFiles: [3: file])
        #expect(!listed.stderr.contains("Synced"), "\(listed.stderr)")
        #expect(try await run(b, ["sync"]).status == 0)
        #expect(try await bodies(b).contains("synced at once"))
        #expect(try await run(a, ["sync", "auto", "off"]).status == 0)
        let quiet = try await a.run(["notes", "add", "--title", "later", "--passcode-fd", "3"], stdin: "x\n", descriptorsFromFiles: [3: file])
        #expect(!quiet.stderr.contains("Synced"), "\(quiet.stderr)")
    }

    @Test func syncSaysWhatIsMissingInOneLine() async throws {
        _ = try await a.setPasscode()
        let notSetUp = try await run(a, ["sync"])
        #expect(notSetUp.status == 7)
        #expect(notSetUp.stderr.contains("sync init"))
        #expect(notSetUp.stderr.split(separator: "\n").count == 1, "\(notSetUp.stderr)")
        let nowhere = try await run(a, ["sync", "init", a.home + "/nowhere.git"])
        #expect(nowhere.status == 6)
        #expect(nowhere.stderr.contains("does not appear to be a git repository"), "\(nowhere.stderr)")
        let hostile = try await a.run(["sync", "init", "ext::sh -c touch% /tmp/pwned", "--passcode-stdin"], stdin: BinaryRunner.passcode + "\n")
        #expect(hostile.status == 64)
        let joinOver = try await run(a, ["sync", "join", bare])
        #expect(joinOver.status == 64)
        #expect(joinOver.stderr.contains("already has a vault"))
    }

    @Test func aSyncKilledAtAnyMomentLosesNothingAndTheNextOneCompletes() async throws {
        _ = try await setUpBoth()
        let listed = try await a.run(["notes", "list", "--json", "--passcode-stdin"], stdin: BinaryRunner.passcode + "\n")
        let id = try #require(listed.stdout.split(separator: "\"").first { $0.count == 36 && $0.contains("-") }.map(String.init))
        for round in 0..<8 {
            #expect(try await run(a, ["notes", "edit", id, "--add-tag", "t\(round)"]).status == 0)
            let started = try a.start(["sync", "--passcode-stdin"], stdin: BinaryRunner.passcode + "\n")
            try await Task.sleep(for: .milliseconds(25 * round))
            kill(started.processIdentifier, SIGKILL)
            started.waitUntilExit()
        }
        let finished = try await run(a, ["sync"])
        #expect(finished.status == 0, "\(finished.stderr)")
        #expect(try await run(b, ["sync"]).status == 0)
        let shown = try await b.run(["notes", "show", id, "--json", "--passcode-stdin"], stdin: passcodeB + "\n")
        for round in 0..<8 { #expect(shown.stdout.contains("\"t\(round)\""), "t\(round) lost: \(shown.stdout)") }
        #expect(try await bodies(a) == bodies(b))
    }

    @Test func aFullDiskStopsASyncInOneLineAndTheNextOneCompletes() async throws {
        // b's data directory on a small tmpfs of its own (root only: mount).
        let small = b.home + "/small"
        try FileManager.default.createDirectory(atPath: small, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let mount = Process()
        mount.executableURL = URL(fileURLWithPath: "/bin/mount")
        mount.arguments = ["-t", "tmpfs", "-o", "size=12m,mode=0700", "tmpfs", small]
        try mount.run()
        mount.waitUntilExit()
        try #require(mount.terminationStatus == 0, "this test mounts a tmpfs: run it as root")
        defer {
            let unmount = Process()
            unmount.executableURL = URL(fileURLWithPath: "/bin/umount")
            unmount.arguments = ["-l", small]
            try? unmount.run()
            unmount.waitUntilExit()
        }
        let onSmall = BinaryRunner(extraEnvironment: ["FINGERLOCK_READER": "simulated", "FINGERLOCK_DATA_DIR": small + "/data"])
        let recoveryKey = try await a.setPasscode()
        try await add(a, "small", "s\n")
        #expect(try await run(a, ["sync", "init", bare]).status == 0)
        let joined = try await onSmall.run(
            ["sync", "join", bare, "--passcode-stdin"], stdin: "\(recoveryKey)\n\(passcodeB)\n\(passcodeB)\n", timeout: .seconds(120))
        #expect(joined.status == 0, "\(joined.stderr)")
        // A large note arrives while b's disk is all but full.
        let large = (0..<40_000).map { "line \($0) of a large note, \(UUID().uuidString)" }.joined(separator: "\n")
        try await add(a, "large", large)
        #expect(try await run(a, ["sync"]).status == 0)
        let filler = small + "/filler"
        let fill = Process()
        fill.executableURL = URL(fileURLWithPath: "/bin/sh")
        fill.arguments = ["-c", "dd if=/dev/zero of='\(filler)' bs=64k 2>/dev/null; rm -f '\(filler).x'; truncate -s -256k '\(filler)'"]
        try fill.run()
        fill.waitUntilExit()
        let full = try await onSmall.run(["sync", "--passcode-stdin"], stdin: passcodeB + "\n", timeout: .seconds(120))
        #expect(full.status == 6, "\(full.stdout) \(full.stderr)")
        #expect(full.stderr.split(separator: "\n").count == 1, "\(full.stderr)")
        let listed = try await onSmall.run(["ls", "--passcode-stdin"], stdin: passcodeB + "\n")
        #expect(listed.stdout.contains("small") && !listed.stdout.contains("large"), "\(listed.stdout) \(listed.stderr)")
        try FileManager.default.removeItem(atPath: filler)
        let again = try await onSmall.run(["sync", "--passcode-stdin"], stdin: passcodeB + "\n", timeout: .seconds(120))
        #expect(again.status == 0, "\(again.stderr)")
        let exported = try await onSmall.run(["export", "--yes-plaintext", "--passcode-stdin"], stdin: passcodeB + "\n")
        #expect(exported.stdout.contains("line 39999 of a large note"))
    }
}
