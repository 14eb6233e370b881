import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Commands on a system-mode vault through the built binaries: `fingerlockd` as the service user,
/// `fingerlock` as a login user (runuser), each command a new process. Needs root, as CI runs.
@Suite(.serialized, .timeLimit(.minutes(6)))
struct SystemModeCommandsTests {
    static let passcode = SystemModeRealUsersTests.passcode

    /// Alice's vault with one note, moved into system mode, and the service it uses.
    final class AliceVault {
        let setup: SystemModeRealUsersTests.Setup
        var service: DaemonProcess
        let data: String
        let recoveryKey: String
        let user = RealUsersTests.alice

        init() throws {
            try RealUsersTests.ensureUsers()
            setup = try SystemModeRealUsersTests.Setup()
            service = try setup.startService()
            data = setup.base + "/\(RealUsersTests.alice)/data"
            let user = RealUsersTests.alice
            let common = ["--reader", "simulated", "--data-dir", data, "--socket", setup.socket]
            let set = try setup.fingerlock(
                as: user, common + ["passcode", "set", "--passcode-fd", "3"], passcodes: [passcode, passcode])
            try #require(set.status == 0, "\(set.output)")
            recoveryKey = try #require(
                set.output.firstMatch(of: /([A-Z0-9]{4}-){12}[A-Z0-9]{4}/).map { String($0.output.0) })
            let added = try setup.fingerlock(
                as: user, common + ["notes", "add", "--title", "kept", "--passcode-fd", "3"], passcodes: [passcode],
                body: "body\n")
            try #require(added.status == 0, "\(added.output)")
            let enabled = try setup.fingerlock(
                as: user, common + ["system", "enable", "--passcode-fd", "3"], passcodes: [passcode])
            try #require(enabled.status == 0, "\(enabled.output)")
        }

        deinit {
            service.terminate()
            try? FileManager.default.removeItem(atPath: setup.base)
        }

        var common: [String] { options(socket: setup.socket) }

        func options(socket: String) -> [String] { ["--reader", "simulated", "--data-dir", data, "--socket", socket] }

        /// `fingerlock ARGS` as Alice, on her vault, asking the service at `socket` (the setup's).
        func run(_ arguments: [String], _ passcodes: [String] = [], socket: String? = nil) throws -> CommandOutput {
            try setup.fingerlockSeparately(
                as: user, options(socket: socket ?? setup.socket) + arguments, passcodes: passcodes)
        }

        func json(_ arguments: [String], socket: String? = nil) throws -> [String: Any] {
            let ran = try run(arguments + ["--json"], socket: socket)
            return try #require(
                try JSONSerialization.jsonObject(with: Data(ran.stdout.utf8)) as? [String: Any], "\(ran)")
        }

        /// `doctor --json`'s service finding (nil when there is none).
        func doctorService(socket: String? = nil) throws -> [String: Any]? {
            let ran = try run(["doctor", "--json"], socket: socket)
            let findings = try #require(
                try JSONSerialization.jsonObject(with: Data(ran.stdout.utf8)) as? [[String: Any]], "\(ran)")
            return findings.first { $0["check"] as? String == "service" }
        }

        func serviceStatus() throws -> [String: Any] {
            try setup.serviceStatus(
                as: user, socket: setup.socket, vault: try SystemModeRealUsersTests.storeID(data))
        }
    }

    @Test func aWrongPasscodeIsSaidOnceWithTheServicesCount() throws {
        let alice = try AliceVault()
        let first = try alice.run(["notes", "list", "--passcode-fd", "3"], ["wrong passcode"])
        #expect(first.status == 1)
        #expect(first.stdout == "")
        #expect(first.stderr == "fingerlock: Wrong passcode (fingerlockd counts 1 wrong in a row).\n", "\(first.stderr)")
        // `passcode change` checks the current passcode through the same counted attempt.
        let change = try alice.run(["passcode", "change", "--passcode-fd", "3"], ["wrong again", "x", "x"])
        #expect(change.status == 1)
        #expect(change.stderr == "fingerlock: Wrong passcode (fingerlockd counts 2 wrong in a row).\n", "\(change.stderr)")
        // So does `restore`'s "passcode or recovery key".
        let backup = alice.setup.base + "/\(alice.user)/backup.flk"
        #expect(try alice.run(["backup", backup, "--passcode-fd", "3"], [Self.passcode]).status == 0)
        let restore = try alice.run(["restore", backup, "--passcode-fd", "3"], ["wrong a third time"])
        #expect(restore.status == 1)
        #expect(restore.stderr == "fingerlock: Wrong passcode (fingerlockd counts 1 wrong in a row).\n", "\(restore.stderr)")
    }

    @Test func statusSaysWhatTheServiceKnowsAndWorksWithoutIt() throws {
        let alice = try AliceVault()
        let socket = alice.setup.socket
        let fresh = try alice.run(["status"])
        #expect(fresh.status == 0 && fresh.stderr == "", "\(fresh)")
        #expect(
            fresh.stdout.contains("service: fingerlockd at \(socket) holds this vault's secret; no key is cached there\n"),
            "\(fresh.stdout)")

        for _ in 0..<2 { #expect(try alice.run(["notes", "list", "--passcode-fd", "3"], ["wrong"]).status == 1) }
        #expect(try alice.run(["status"]).stdout.contains("passcode: 2 wrong in a row (counted by fingerlockd)\n"))
        var json = try alice.json(["status"])
        // The keys scripts already read are all there, with the service's counters.
        for key in [
            "setUp", "unlocked", "keyExpiresInSeconds", "reuseWindowSecondsLeft", "failedTouches", "lockedOut",
            "failedPasscodes", "passcodeDelaySecondsLeft", "fingers", "kind", "mode", "keyCacheUnavailable", "version",
        ] {
            #expect(json.keys.contains(key), "\(key)")
        }
        #expect(json["mode"] as? String == "system")
        #expect(json["failedPasscodes"] as? Int == 2)
        var service = try #require(json["service"] as? [String: Any])
        #expect(service["socket"] as? String == socket)
        #expect(service["reachable"] as? Bool == true)
        #expect(service["problem"] is NSNull)
        #expect(service["registered"] as? Bool == true)
        #expect(service["unlocked"] as? Bool == false)
        #expect(service["unlockedSecondsLeft"] as? Int == 0)
        #expect(service["failedPasscodes"] as? Int == 2)
        #expect(service["delaySecondsLeft"] as? Int == 0)

        // The fifth wrong passcode starts the service's delay, which status shows.
        for _ in 0..<3 { #expect(try alice.run(["notes", "list", "--passcode-fd", "3"], ["wrong"]).status == 1) }
        let delayed = try alice.run(["status"]).stdout
        #expect(
            delayed.contains(/passcode: 5 wrong in a row \(counted by fingerlockd\); next attempt in (1 min|\d+ s)\n/),
            "\(delayed)")
        json = try alice.json(["status"])
        #expect((json["passcodeDelaySecondsLeft"] as? Int ?? 0) > 50)
        service = try #require(json["service"] as? [String: Any])
        #expect((service["delaySecondsLeft"] as? Int ?? 0) > 50)

        // A service without this vault's secret says so, and how to get back in.
        let other = try alice.setup.startService("run2")
        defer { other.terminate() }
        let otherSocket = alice.setup.base + "/run2/socket"
        let unknown = try alice.run(["status"], socket: otherSocket)
        #expect(unknown.status == 0)
        #expect(unknown.stdout.contains("has no secret for this vault"), "\(unknown.stdout)")
        #expect(unknown.stdout.contains("`fingerlock passcode reset`"))
        #expect(
            (try alice.json(["status"], socket: otherSocket)["service"] as? [String: Any])?["registered"] as? Bool
                == false)

        // No service: status still answers (exit 0), naming the problem and the fix.
        alice.service.terminate()
        let down = try alice.run(["status"])
        #expect(down.status == 0 && down.stderr == "", "\(down)")
        #expect(down.stdout.contains("service: fingerlockd is not reachable at \(socket) (no socket there)"), "\(down)")
        #expect(down.stdout.contains("systemctl enable --now fingerlockd.socket"))
        #expect(down.stdout.contains("mode: system\n"))
        service = try #require(try alice.json(["status"])["service"] as? [String: Any])
        #expect(service["reachable"] as? Bool == false)
        #expect((service["problem"] as? String)?.contains("systemctl enable --now fingerlockd.socket") == true)
        #expect(service["registered"] is NSNull)
        #expect(service["failedPasscodes"] is NSNull)
    }

    @Test func statusOfAUserModeVaultHasNoServiceObject() throws {
        try RealUsersTests.ensureUsers()
        let setup = try SystemModeRealUsersTests.Setup()
        defer { try? FileManager.default.removeItem(atPath: setup.base) }
        let bob = RealUsersTests.bob
        let common = ["--reader", "simulated", "--data-dir", setup.base + "/\(bob)/data", "--socket", setup.socket]
        let set = try setup.fingerlock(
            as: bob, common + ["passcode", "set", "--passcode-fd", "3"], passcodes: [Self.passcode, Self.passcode])
        try #require(set.status == 0, "\(set.output)")
        let shown = try setup.fingerlockSeparately(as: bob, common + ["status", "--json"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])
        #expect(json["mode"] as? String == "user")
        #expect(json["service"] is NSNull)
        #expect(!(try setup.fingerlockSeparately(as: bob, common + ["status"])).stdout.contains("service:"))
    }
}
