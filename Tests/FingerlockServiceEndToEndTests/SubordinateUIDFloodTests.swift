import FingerlockServiceTestSupport
import FingerlockTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 27, finding 1, with real users and the built `fingerlockd`: Bob connects as many of his
/// subordinate uids (`/etc/subuid`) from an unprivileged user namespace (`unshare` with
/// `newuidmap`, package `uidmap`). They all count as Bob: his flood of connections takes his share
/// only, so Alice is still served, and his vaults over all those uids stay within one user's quota.
/// Needs root (as CI runs); the two users are made for each test and deleted after it.
@Suite(.timed, .serialized, .timeLimit(.minutes(3)))
struct SubordinateUIDFloodTests {
    static let alice = "flk-flood-a"
    static let bob = "flk-flood-b"

    /// The inner uids of Bob's namespace that the flood uses: 9 x 32 connections is more than the
    /// service's 256 in all.
    static let floodUIDs = 9

    /// The two login users, Bob with a subordinate range, for the length of `body`.
    static func withUsers(_ body: (_ bobsFirstSubordinateUID: UInt32) async throws -> Void) async throws {
        try await RealUsersTests.ensureUsers([])  // the service user
        // Other suites add users too: a locked /etc/passwd is waited out.
        func retried(_ command: String, _ arguments: [String]) async throws -> Bool {
            for _ in 0..<10 {
                if try await runCommand(command, arguments).status == 0 { return true }
                try await Task.sleep(for: .milliseconds(500))
            }
            return false
        }
        for name in [alice, bob] {
            if getpwnam(name) != nil { _ = try await retried("/usr/sbin/userdel", [name]) }
            let made = try await retried("/usr/sbin/useradd", ["--no-create-home", "--shell", "/usr/sbin/nologin", name])
            try #require(made, "useradd \(name) failed")
        }
        // Deleted afterwards however the rest ends (a `defer` cannot await).
        var failure: (any Error)?
        do { try await withUsersMade(body) } catch { failure = error }
        for name in [alice, bob] { _ = try? await retried("/usr/sbin/userdel", [name]) }
        if let failure { throw failure }
    }

    private static func withUsersMade(_ body: (_ bobsFirstSubordinateUID: UInt32) async throws -> Void) async throws {
        // useradd gives a range only when /etc/subuid exists; otherwise one is added after the others.
        if subordinateRange(of: bob) == nil {
            let first = max(100_000, subordinateEnd())
            let range = "\(first)-\(first + 65535)"
            let (status, _) = try await runCommand("/usr/sbin/usermod", ["--add-subuids", range, "--add-subgids", range, bob])
            try #require(status == 0, "usermod --add-subuids \(range) \(bob) failed")
        }
        let range = try #require(subordinateRange(of: bob), "\(bob) has no subordinate uids")
        try #require(range.count >= UInt32(floodUIDs))
        try await body(range.first)
    }

    static func subordinateRanges() -> [(owner: String, first: UInt32, count: UInt32)] {
        let text = (try? String(contentsOfFile: "/etc/subuid", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: ":")
            guard fields.count == 3, let first = UInt32(fields[1]), let count = UInt32(fields[2]) else { return nil }
            return (String(fields[0]), first, count)
        }
    }

    static func subordinateRange(of user: String) -> (first: UInt32, count: UInt32)? {
        subordinateRanges().first { $0.owner == user }.map { ($0.first, $0.count) }
    }

    static func subordinateEnd() -> UInt32 { subordinateRanges().map { $0.first + $0.count }.max() ?? 0 }

    /// The flood script run by Bob as uids 1...`uids` of a namespace of his own, mapped to his
    /// subordinate uids from `first`; started, not waited for.
    final class Flood {
        let process = Process()
        let output: String

        init(_ setup: RealUsersTests.Setup, first: UInt32, uids: Int, _ arguments: [String]) throws {
            output = setup.base + "/flood-\(UUID().uuidString).out"
            _ = FileManager.default.createFile(atPath: output, contents: nil)
            let script = setup.base + "/subordinate_flood.py"
            if !FileManager.default.fileExists(atPath: script) {
                try FileManager.default.copyItem(atPath: fixtures + "/subordinate_flood.py", toPath: script)
                chmod(script, 0o644)
            }
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/runuser")
            process.arguments =
                [
                    "-u", SubordinateUIDFloodTests.bob, "--", "/usr/bin/unshare", "--map-user=0",
                    "--map-users=\(first),1,\(uids)", "--map-group=0", "--", "/usr/bin/python3", script, setup.socket,
                    "\(uids)",
                ] + arguments
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle(forWritingAtPath: output)
            _ = FileManager.default.createFile(atPath: output + ".err", contents: nil)
            process.standardError = FileHandle(forWritingAtPath: output + ".err")
            try process.run()
            // The child has its own copies: the Process would keep these open past its end.
            try? (process.standardOutput as? FileHandle)?.close()
            try? (process.standardError as? FileHandle)?.close()
        }

        /// The script's report once every uid has done its part (at most 60 s).
        func report() async throws -> (pid: pid_t, outcomes: [String: Int]) {
            var report: (pid: pid_t, outcomes: [String: Int])?
            _ = try await poll(timeout: .seconds(60)) {
                let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
                if let line = text.split(separator: "\n").first,
                    let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                    let pid = object["pid"] as? Int, let outcomes = object["outcomes"] as? [String: Int]
                {
                    report = (pid_t(pid), outcomes)
                }
                return report != nil || !process.isRunning
            }
            if let report { return report }
            let errors = (try? String(contentsOfFile: output + ".err", encoding: .utf8)) ?? ""
            throw DaemonProcess.Failure(description: "the flood gave no report: \(errors)")
        }

        /// Kills the script (its children die with it) and waits for runuser. For a `defer`, which
        /// cannot await: runuser ends within milliseconds of the script.
        func end(_ pid: pid_t?) {
            // Only while runuser runs: until it has reaped the script, the pid cannot be another's.
            if let pid, process.isRunning { kill(pid, SIGKILL) }
            for _ in 0..<1000 where process.isRunning { usleep(10_000) }
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
        }
    }

    @Test func aUsersSubordinateUIDsShareOneUsersConnectionsAndAnotherUserIsStillServed() async throws {
        try await Self.withUsers { first in
            let setup = try RealUsersTests.Setup()
            let service = try await setup.startService()
            defer {
                service.terminateBlocking()
                try? FileManager.default.removeItem(atPath: setup.base)
            }
            // Bob: 32 idle connections from each of 9 subordinate uids, held for up to 60 s.
            let flood = try Flood(setup, first: first, uids: Self.floodUIDs, ["connect", "32", "60"])
            var pid: pid_t?
            defer { flood.end(pid) }
            let report = try await flood.report()
            pid = report.pid
            // All of them count as Bob's: his share is served, the rest refused at once.
            #expect(report.outcomes["served"] == 32, "\(report.outcomes)")
            #expect(report.outcomes["io.fingerlock.Service.TooManyConnections"] == Self.floodUIDs * 32 - 32)
            // Alice is served while Bob's connections are held; Bob's own uid is refused (his share is taken).
            let vault = UUID().uuidString
            let reply = try await setup.call(as: Self.alice, "RegisterVault", ["vault": vault])
            #expect(reply.parameters["created"] as? Bool == true, "\(reply)")
            #expect(
                try await setup.call(as: Self.bob, "Status", ["vault": vault]).errorName
                    == "io.fingerlock.Service.TooManyConnections")
            #expect(flood.process.isRunning, "Bob's connections were still held during Alice's call")
            // The log says whose account refused them.
            #expect(service.log.contains("account=uid \(RealUsersTests.uid(Self.bob))"), "\(service.log.suffix(2000))")
        }
    }

    @Test func aUsersSubordinateUIDsShareOneUsersVaultQuota() async throws {
        try await Self.withUsers { first in
            let setup = try RealUsersTests.Setup()
            let service = try await setup.startService()
            defer {
                service.terminateBlocking()
                try? FileManager.default.removeItem(atPath: setup.base)
            }
            // Bob registers 30 vaults as each of 3 subordinate uids: 64 in all are his.
            let flood = try Flood(setup, first: first, uids: 3, ["register", "30"])
            var pid: pid_t?
            defer { flood.end(pid) }
            let report = try await flood.report()
            pid = report.pid
            #expect(report.outcomes["served"] == 64, "\(report.outcomes)")
            #expect(report.outcomes["io.fingerlock.Service.TooManyVaults"] == 90 - 64)
            let own = try await setup.call(as: Self.bob, "RegisterVault", ["vault": UUID().uuidString])
            #expect(own.errorName == "io.fingerlock.Service.TooManyVaults", "\(own)")
            #expect(own.parameters["limit"] as? Int == 64)
            // Alice still registers hers.
            let mine = try await setup.call(as: Self.alice, "RegisterVault", ["vault": UUID().uuidString])
            #expect(mine.parameters["created"] as? Bool == true, "\(mine)")
            // The state holds Bob's 64 and Alice's one, and no directory of a refused uid.
            let v1 = setup.state + "/v1"
            var vaults = 0
            for user in try FileManager.default.contentsOfDirectory(atPath: v1) {
                let count = try FileManager.default.contentsOfDirectory(atPath: v1 + "/" + user).count
                #expect(count > 0, "an empty directory for uid \(user)")
                vaults += count
            }
            #expect(vaults == 65)
        }
    }
}
