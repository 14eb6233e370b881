import FingerlockServiceTestSupport
import FingerlockTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// fingerlockd keeps each cached key in locked memory (issue 27, finding 6): the built service runs
/// as its own user, a client unlocks a vault, and the kernel's view of the service's memory
/// (/proc/PID/status, /proc/PID/smaps) shows the pages locked and out of core dumps while the key is
/// cached, and released after Lock. When the system refuses the lock (RLIMIT_MEMLOCK 0), the service
/// keeps working and says so once. Needs root, as CI runs. Not serialized: each test has its own
/// service (whose memory it reads), socket and state.
@Suite(.timed, .timeLimit(.minutes(3)))
struct KeyMemoryTests {
    /// This suite's own login user (`RealUsersTests.ensureUsers`).
    static let alice = "flk-km-alice"

    /// VmLck of a process, in kB.
    static func lockedKilobytes(_ pid: pid_t) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmLck:") })
        return try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
    }

    /// How many mappings of a process are both locked ("lo") and left out of core dumps ("dd").
    static func lockedUndumpedMappings(_ pid: pid_t) throws -> Int {
        // Read to the end: the file's size is 0 and a single read returns only its first part.
        let handle = try #require(FileHandle(forReadingAtPath: "/proc/\(pid)/smaps"))
        let smaps = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        return smaps.split(separator: "\n").filter { line in
            guard line.hasPrefix("VmFlags:") else { return false }
            let flags = line.split(separator: " ")
            return flags.contains("lo") && flags.contains("dd")
        }.count
    }

    @Test func aCachedKeyLivesInLockedUndumpedMemoryUntilItIsForgotten() async throws {
        try await RealUsersTests.ensureUsers([Self.alice])
        let setup = try RealUsersTests.Setup()
        let service = try await setup.startService()
        defer {
            service.terminateBlocking()
            try? FileManager.default.removeItem(atPath: setup.base)
        }
        let pid = service.process.processIdentifier
        let before = try Self.lockedKilobytes(pid)
        let vault = try await setup.sealedVault(as: Self.alice)
        let unlocked = try await setup.call(as: Self.alice, "UnlockWithPasscode", vault.unlock())
        #expect(unlocked.parameters["key"] as? String == vault.key.base64EncodedString())
        #expect(try Self.lockedKilobytes(pid) >= before + 4, "VmLck did not grow by a page")
        #expect(try Self.lockedUndumpedMappings(pid) >= 1)
        #expect(try await setup.call(as: Self.alice, "Lock", ["vault": vault.id]).parameters["wasUnlocked"] as? Bool == true)
        #expect(try Self.lockedKilobytes(pid) == before, "the key's page stayed locked after Lock")
        #expect(!service.log.contains("cannot lock key memory"), "\(service.log)")
    }

    @Test func whenTheLockIsRefusedTheServiceSaysSoOnceAndKeepsWorking() async throws {
        try await RealUsersTests.ensureUsers([Self.alice])
        let setup = try RealUsersTests.Setup()
        let service = try await DaemonProcess(
            socket: setup.socket, stateDirectory: setup.state, binary: setup.binary, asUser: RealUsersTests.serviceUser,
            launcher: ["/usr/bin/prlimit", "--memlock=0:0", "--"])
        defer {
            service.terminateBlocking()
            try? FileManager.default.removeItem(atPath: setup.base)
        }
        let pid = service.process.processIdentifier
        for _ in 0..<2 {
            let vault = try await setup.sealedVault(as: Self.alice)
            let unlocked = try await setup.call(as: Self.alice, "UnlockWithPasscode", vault.unlock())
            #expect(unlocked.parameters["key"] as? String == vault.key.base64EncodedString(), "\(unlocked)")
            // The key is still cached, for a touch to release.
            let status = try #require(
                try await setup.call(as: Self.alice, "Status", ["vault": vault.id]).parameters["status"]
                    as? [String: Any])
            #expect(status["unlocked"] as? Bool == true)
        }
        #expect(try Self.lockedKilobytes(pid) == 0)
        let said = service.log.components(separatedBy: "cannot lock key memory (mlock: ").count - 1
        #expect(said == 1, "\(service.log)")
    }

    /// Non-dumpable stops new tracers, not one attached before the service made itself so: a
    /// process of the service user could kill the service and attach to the next one systemd starts.
    /// A service traced since its start refuses to run (strace here, as root, from the very start).
    @Test func aServiceTracedSinceItsStartRefusesToRun() async throws {
        try await RealUsersTests.ensureUsers([Self.alice])
        let setup = try RealUsersTests.Setup()
        defer { try? FileManager.default.removeItem(atPath: setup.base) }
        // `timeout` (traced too) ends a service that does run, so the test never waits on it.
        let ran = try await runCommandSeparately(
            "/usr/bin/strace",
            [
                "-f", "-o", "/dev/null", "--", "/usr/bin/timeout", "5", "/usr/bin/setpriv", "--reuid",
                RealUsersTests.serviceUser, "--regid", RealUsersTests.serviceUser, "--init-groups", "--", setup.binary,
                "--socket", setup.socket, "--state-dir", setup.state,
            ], timeout: 30)
        #expect(ran.status == 1, "\(ran)")
        #expect(ran.stderr.contains("has been tracing fingerlockd since it started"), "\(ran.stderr)")
        #expect(!FileManager.default.fileExists(atPath: setup.state), "it set up its state before refusing")
    }
}
