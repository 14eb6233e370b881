import FingerlockServiceTestSupport
import FingerlockTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Commands on a system-mode vault through the built binaries: `fingerlockd` as the service user,
/// `fingerlock` as a login user (runuser), each command a new process. Needs root, as CI runs. Not
/// serialized: each test has its own service, socket, state, home and keyring namespace (`Setup`).
@Suite(.timed, .timeLimit(.minutes(6)))
struct SystemModeCommandsTests {
    static let passcode = SystemModeRealUsersTests.passcode
    /// This suite's own login users (`RealUsersTests.ensureUsers`).
    static let alice = "flk-smc-alice"
    static let bob = "flk-smc-bob"
    static let users = [alice, bob]

    /// Alice's vault with one note, moved into system mode, and the service it uses.
    final class AliceVault {
        let setup: SystemModeRealUsersTests.Setup
        var service: DaemonProcess
        let data: String
        let recoveryKey: String
        let user = SystemModeCommandsTests.alice

        init() async throws {
            try await RealUsersTests.ensureUsers(SystemModeCommandsTests.users)
            setup = try SystemModeRealUsersTests.Setup(users: SystemModeCommandsTests.users)
            service = try await setup.startService()
            data = setup.base + "/\(SystemModeCommandsTests.alice)/data"
            let user = SystemModeCommandsTests.alice
            let common = ["--reader", "simulated", "--data-dir", data, "--socket", setup.socket]
            let set = try await setup.fingerlock(
                as: user, common + ["passcode", "set", "--passcode-fd", "3"], passcodes: [passcode, passcode])
            try #require(set.status == 0, "\(set.output)")
            recoveryKey = try #require(
                set.output.firstMatch(of: /([A-Z0-9]{4}-){12}[A-Z0-9]{4}/).map { String($0.output.0) })
            let added = try await setup.fingerlock(
                as: user, common + ["notes", "add", "--title", "kept", "--passcode-fd", "3"], passcodes: [passcode],
                body: "body\n")
            try #require(added.status == 0, "\(added.output)")
            let enabled = try await setup.fingerlock(
                as: user, common + ["system", "enable", "--passcode-fd", "3"], passcodes: [passcode])
            try #require(enabled.status == 0, "\(enabled.output)")
        }

        deinit {
            service.terminateBlocking()
            try? FileManager.default.removeItem(atPath: setup.base)
        }

        var common: [String] { options(socket: setup.socket) }

        func options(socket: String) -> [String] { ["--reader", "simulated", "--data-dir", data, "--socket", socket] }

        /// `fingerlock ARGS` as Alice, on her vault, asking the service at `socket` (the setup's).
        func run(_ arguments: [String], _ passcodes: [String] = [], socket: String? = nil) async throws -> CommandOutput {
            try await setup.fingerlockSeparately(
                as: user, options(socket: socket ?? setup.socket) + arguments, passcodes: passcodes)
        }

        func json(_ arguments: [String], socket: String? = nil) async throws -> [String: Any] {
            let ran = try await run(arguments + ["--json"], socket: socket)
            return try #require(
                try JSONSerialization.jsonObject(with: Data(ran.stdout.utf8)) as? [String: Any], "\(ran)")
        }

        /// `doctor --json`'s service finding (nil when there is none).
        func doctorService(socket: String? = nil) async throws -> [String: Any]? {
            let ran = try await run(["doctor", "--json"], socket: socket)
            let findings = try #require(
                try JSONSerialization.jsonObject(with: Data(ran.stdout.utf8)) as? [[String: Any]], "\(ran)")
            return findings.first { $0["check"] as? String == "service" }
        }

        func serviceStatus() async throws -> [String: Any] {
            try await setup.serviceStatus(
                as: user, socket: setup.socket, vault: try await SystemModeRealUsersTests.storeID(data))
        }
    }

    @Test func aWrongPasscodeIsSaidOnceWithTheServicesCount() async throws {
        let alice = try await AliceVault()
        let first = try await alice.run(["notes", "list", "--passcode-fd", "3"], ["wrong passcode"])
        #expect(first.status == 1)
        #expect(first.stdout == "")
        #expect(first.stderr == "fingerlock: Wrong passcode (fingerlockd counts 1 wrong in a row).\n", "\(first.stderr)")
        // `passcode change` checks the current passcode through the same counted attempt.
        let change = try await alice.run(["passcode", "change", "--passcode-fd", "3"], ["wrong again", "x", "x"])
        #expect(change.status == 1)
        #expect(change.stderr == "fingerlock: Wrong passcode (fingerlockd counts 2 wrong in a row).\n", "\(change.stderr)")
        // So does `restore`'s "passcode or recovery key".
        let backup = alice.setup.base + "/\(alice.user)/backup.flk"
        #expect(try await alice.run(["backup", backup, "--passcode-fd", "3"], [Self.passcode]).status == 0)
        let restore = try await alice.run(["restore", backup, "--passcode-fd", "3"], ["wrong a third time"])
        #expect(restore.status == 1)
        #expect(restore.stderr == "fingerlock: Wrong passcode (fingerlockd counts 1 wrong in a row).\n", "\(restore.stderr)")
    }

    @Test func statusSaysWhatTheServiceKnowsAndWorksWithoutIt() async throws {
        let alice = try await AliceVault()
        let socket = alice.setup.socket
        let fresh = try await alice.run(["status"])
        #expect(fresh.status == 0 && fresh.stderr == "", "\(fresh)")
        #expect(
            fresh.stdout.contains("service: fingerlockd at \(socket) holds this vault's secret; no key is cached there\n"),
            "\(fresh.stdout)")

        for _ in 0..<2 { #expect(try await alice.run(["notes", "list", "--passcode-fd", "3"], ["wrong"]).status == 1) }
        #expect(try await alice.run(["status"]).stdout.contains("passcode: 2 wrong in a row (counted by fingerlockd)\n"))
        var json = try await alice.json(["status"])
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
        for _ in 0..<3 { #expect(try await alice.run(["notes", "list", "--passcode-fd", "3"], ["wrong"]).status == 1) }
        let delayed = try await alice.run(["status"]).stdout
        #expect(
            delayed.contains(/passcode: 5 wrong in a row \(counted by fingerlockd\); next attempt in (1 min|\d+ s)\n/),
            "\(delayed)")
        json = try await alice.json(["status"])
        #expect((json["passcodeDelaySecondsLeft"] as? Int ?? 0) > 50)
        service = try #require(json["service"] as? [String: Any])
        #expect((service["delaySecondsLeft"] as? Int ?? 0) > 50)

        // A service without this vault's secret says so, and how to get back in.
        let other = try await alice.setup.startService("run2")
        defer { other.terminateBlocking() }
        let otherSocket = alice.setup.base + "/run2/socket"
        let unknown = try await alice.run(["status"], socket: otherSocket)
        #expect(unknown.status == 0)
        #expect(unknown.stdout.contains("has no secret for this vault"), "\(unknown.stdout)")
        #expect(unknown.stdout.contains("`fingerlock passcode reset`"))
        #expect(
            (try await alice.json(["status"], socket: otherSocket)["service"] as? [String: Any])?["registered"] as? Bool
                == false)

        // No service: status still answers (exit 0), naming the problem and the fix.
        await alice.service.terminate()
        let down = try await alice.run(["status"])
        #expect(down.status == 0 && down.stderr == "", "\(down)")
        #expect(down.stdout.contains("service: fingerlockd is not reachable at \(socket) (no socket there)"), "\(down)")
        #expect(down.stdout.contains(ServiceStartHint.here), "\(down.stdout)")
        #expect(down.stdout.contains("mode: system\n"))
        service = try #require(try await alice.json(["status"])["service"] as? [String: Any])
        #expect(service["reachable"] as? Bool == false)
        #expect((service["problem"] as? String)?.contains(ServiceStartHint.here) == true)
        #expect(service["registered"] is NSNull)
        #expect(service["failedPasscodes"] is NSNull)
    }

    /// The service caches the key for the cache-expiry the vault last told it; every passcode proven
    /// to it, not only an unlock, keeps to that.
    @Test func everyPasscodeThroughTheServiceLeavesTheKeyThereNoLongerThanCacheExpiry() async throws {
        let alice = try await AliceVault()
        let configured = try await alice.run(["config", "set", "cache-expiry", "2m", "--passcode-fd", "3"], [Self.passcode])
        #expect(configured.status == 0, "\(configured)")
        #expect(try await alice.run(["lock"]).status == 0)
        #expect(try await alice.serviceStatus()["unlocked"] as? Bool == false)

        let newPasscode = "another passcode 7"
        let change = try await alice.run(
            ["passcode", "change", "--passcode-fd", "3"], [Self.passcode, newPasscode, newPasscode])
        #expect(change.status == 0, "\(change)")
        let status = try await alice.serviceStatus()
        #expect(status["unlocked"] as? Bool == true, "\(status)")
        let seconds = try #require(status["unlockedSeconds"] as? Int)
        #expect(seconds > 0 && seconds <= 120, "the service keeps the key for \(seconds) s")
    }

    /// The settings sealed in the vault reach the service whenever a command holds the vault key:
    /// `system enable` tells it the vault's settings and kind, `config set` the changed ones.
    @Test func theVaultsSettingsReachTheServiceWithTheKey() async throws {
        let alice = try await AliceVault()
        var policy = try #require(try await alice.serviceStatus()["policy"] as? [String: Any])
        #expect(policy["kind"] as? String == "test", "\(policy)")
        #expect(policy["cacheExpirySeconds"] as? Int == 8 * 3600)
        #expect(policy["scanTimeoutSeconds"] as? Int == 30)
        let configured = try await alice.run(["config", "set", "scan-timeout", "5s", "--passcode-fd", "3"], [Self.passcode])
        #expect(configured.status == 0, "\(configured)")
        let reuse = try await alice.run(["config", "set", "reuse-window", "1m", "--passcode-fd", "3"], [Self.passcode])
        #expect(reuse.status == 0, "\(reuse)")
        policy = try #require(try await alice.serviceStatus()["policy"] as? [String: Any])
        #expect(policy["scanTimeoutSeconds"] as? Int == 5)
        #expect(policy["reuseWindowSeconds"] as? Int == 60)
        // The passcode just entered started the window; `status` shows the service's.
        #expect((try await alice.serviceStatus()["reuseSeconds"] as? Int ?? 0) > 0)
        let shown = try await alice.json(["status"])
        #expect((shown["reuseWindowSecondsLeft"] as? Int ?? 0) > 0, "\(shown)")
    }

    @Test func statusOfAUserModeVaultHasNoServiceObject() async throws {
        try await RealUsersTests.ensureUsers(SystemModeCommandsTests.users)
        let setup = try SystemModeRealUsersTests.Setup(users: SystemModeCommandsTests.users)
        defer { try? FileManager.default.removeItem(atPath: setup.base) }
        let bob = SystemModeCommandsTests.bob
        let common = ["--reader", "simulated", "--data-dir", setup.base + "/\(bob)/data", "--socket", setup.socket]
        let set = try await setup.fingerlock(
            as: bob, common + ["passcode", "set", "--passcode-fd", "3"], passcodes: [Self.passcode, Self.passcode])
        try #require(set.status == 0, "\(set.output)")
        let shown = try await setup.fingerlockSeparately(as: bob, common + ["status", "--json"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])
        #expect(json["mode"] as? String == "user")
        #expect(json["service"] is NSNull)
        #expect(!(try await setup.fingerlockSeparately(as: bob, common + ["status"])).stdout.contains("service:"))
    }

    /// Something else on a socket of the service user's: started as that user, killed afterwards.
    final class FakeService {
        let process = Process()

        /// With `record`, the fake appends every request it receives to that file.
        init(_ setup: SystemModeRealUsersTests.Setup, socket: String, mode: String, record: String? = nil) async throws {
            let script = setup.base + "/fake_service.py"
            if !FileManager.default.fileExists(atPath: script) {
                try FileManager.default.copyItem(atPath: fixtures + "/fake_service.py", toPath: script)
                chmod(script, 0o644)
            }
            // setpriv execs python itself, so killing this process kills the server.
            let user = RealUsersTests.serviceUser
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments =
                [
                    "--reuid", user, "--regid", user, "--init-groups", "--", "/usr/bin/python3", script, socket, mode,
                ] + (record.map { [$0] } ?? [])
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            _ = try await poll(timeout: .seconds(5)) { FileManager.default.fileExists(atPath: socket) }
            try #require(FileManager.default.fileExists(atPath: socket), "the fake service did not start")
        }

        /// For `deinit`, which cannot await: a killed process is gone within milliseconds.
        deinit {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    @Test func doctorChecksTheServiceOfASystemModeVault() async throws {
        let alice = try await AliceVault()
        let setup = alice.setup
        let serviceUID = RealUsersTests.uid(RealUsersTests.serviceUser)

        let healthy = try #require(try await alice.doctorService())
        #expect(healthy["status"] as? String == "ok", "\(healthy)")
        let message = healthy["message"] as? String ?? ""
        #expect(message.contains("(protocol 1) answers at \(setup.socket) as uid \(serviceUID)"), "\(message)")
        #expect(message.contains("SO_PEERCRED agrees") && message.contains("holds this vault's secret"), "\(message)")
        #expect(healthy["fix"] is NSNull)
        let text = try await alice.run(["doctor"]).stdout
        #expect(text.contains("[ok]      service: fingerlockd "), "\(text)")
        // The reader and the fingers are the service's: none visible to Alice is not an error, and the
        // fingers are asked of the service, not said to be sealed in a locked vault.
        let findings = try #require(
            try JSONSerialization.jsonObject(with: Data(try await alice.run(["doctor", "--json"]).stdout.utf8))
                as? [[String: Any]])
        let readers = try #require(findings.first { $0["check"] as? String == "readers" })
        #expect(readers["status"] as? String == "ok", "\(readers)")
        let enrolled = try #require(findings.first { $0["check"] as? String == "enrolled" })
        #expect((enrolled["message"] as? String)?.contains("No finger is enrolled") == true, "\(enrolled)")

        // Each way it can be wrong is an error, with its fix.
        func expectError(_ socket: String, _ says: String, fix: String, sourceLocation: SourceLocation = #_sourceLocation)
            async throws
        {
            let finding = try #require(try await alice.doctorService(socket: socket), sourceLocation: sourceLocation)
            #expect(finding["status"] as? String == "error", "\(finding)", sourceLocation: sourceLocation)
            #expect((finding["message"] as? String)?.contains(says) == true, "\(finding)", sourceLocation: sourceLocation)
            #expect(
                (finding["message"] as? String)?.contains("This vault is in system mode") == true
                    || says.contains("no secret"), "\(finding)", sourceLocation: sourceLocation)
            #expect((finding["fix"] as? String)?.contains(fix) == true, "\(finding)", sourceLocation: sourceLocation)
        }
        try await expectError(
            setup.base + "/nothing-here", "No fingerlockd socket at \(setup.base)/nothing-here.",
            fix: ServiceStartHint.here)

        // A fresh service that never saw this vault.
        let other = try await setup.startService("run2")
        defer { other.terminateBlocking() }
        try await expectError(setup.base + "/run2/socket", "but it has no secret for this vault", fix: "fingerlock passcode reset")

        // A "service" of Alice's own: any process of hers could pose as it.
        let own = try await DaemonProcess(
            socket: setup.base + "/\(alice.user)/socket", stateDirectory: setup.base + "/\(alice.user)/state",
            binary: setup.daemon, asUser: alice.user)
        defer { own.terminateBlocking() }
        try await expectError(
            setup.base + "/\(alice.user)/socket", "belongs to you (uid \(RealUsersTests.uid(alice.user)))",
            fix: "use the service's own socket")

        // The socket file says the service user, the kernel says root listens: SO_PEERCRED disagrees.
        mkdir(setup.base + "/run3", 0o755)
        let rootOwned = try await DaemonProcess(
            socket: setup.base + "/run3/socket", stateDirectory: setup.base + "/run3/state", binary: setup.daemon)
        defer { rootOwned.terminateBlocking() }
        chown(setup.base + "/run3/socket", serviceUID, setup.gid(RealUsersTests.serviceUser))
        try await expectError(
            setup.base + "/run3/socket",
            "SO_PEERCRED says \(setup.base)/run3/socket is served by uid 0, but the socket "
                + "file belongs to uid \(serviceUID)", fix: ServiceStartHint.restartHere)

        // Another protocol version, and a service that never answers.
        mkdir(setup.base + "/run4", 0o755)
        chown(setup.base + "/run4", serviceUID, setup.gid(RealUsersTests.serviceUser))
        do {
            let newer = try await FakeService(setup, socket: setup.base + "/run4/protocol2", mode: "protocol2")
            try await expectError(
                setup.base + "/run4/protocol2",
                "fingerlockd at \(setup.base)/run4/protocol2 speaks protocol 2; "
                    + "this fingerlock speaks protocol 1.", fix: "from the same source")
            _ = newer
        }
        do {
            let silent = try await FakeService(setup, socket: setup.base + "/run4/silent", mode: "silent")
            try await expectError(
                setup.base + "/run4/silent", "did not answer GetInfo (no answer in time)",
                fix: ServiceStartHint.restartHere)
            _ = silent
        }

        // The service killed: the default socket is gone.
        await alice.service.terminate()
        try await expectError(setup.socket, "No fingerlockd socket at \(setup.socket).", fix: "FINGERLOCK_SOCKET")
    }

    /// The socket's owner says who listens, not what: before anything derived from the passcode
    /// goes out on a connection, GetInfo must say fingerlockd speaking this client's protocol. The
    /// fakes record every request they receive.
    @Test func nothingDerivedFromThePasscodeGoesToASocketThatIsNotFingerlockd() async throws {
        let alice = try await AliceVault()
        let setup = alice.setup
        let serviceUser = RealUsersTests.serviceUser
        mkdir(setup.base + "/run5", 0o755)
        chown(setup.base + "/run5", RealUsersTests.uid(serviceUser), setup.gid(serviceUser))
        let cases = [
            ("impostor", "it says it is varlink-bridge 1.0 (protocol 1) from someone, not fingerlockd"),
            ("nogetinfo", "it does not answer GetInfo as fingerlockd does"),
        ]
        for (mode, why) in cases {
            let socket = setup.base + "/run5/\(mode)"
            let record = setup.base + "/run5/\(mode).requests"
            let fake = try await FakeService(setup, socket: socket, mode: mode, record: record)
            for arguments in [["notes", "list"], ["passcode", "change"]] {
                let ran = try await alice.run(
                    arguments + ["--passcode-fd", "3"], [Self.passcode, "new passcode 1", "new passcode 1"], socket: socket)
                #expect(ran.status == 4, "\(arguments): \(ran)")
                #expect(
                    ran.stderr == "fingerlock: \(socket) is not fingerlockd as this fingerlock knows it (\(why)), so "
                        + "nothing derived from the passcode was sent: point --socket (FINGERLOCK_SOCKET) at fingerlockd, "
                        + "or install fingerlock and fingerlockd from the same source.\n", "\(arguments)")
            }
            let received = (try? String(contentsOfFile: record, encoding: .utf8)) ?? ""
            #expect(received.contains("\"org.varlink.service.GetInfo\""), "\(mode): \(received)")
            for secret in ["stretched", "\"key\"", "sealedSlot", "UnlockWithPasscode"] {
                #expect(!received.contains(secret), "\(mode) received \(secret): \(received)")
            }
            withExtendedLifetime(fake) {}
        }
        // The real service passes the check, and the notes and the passcode are as they were.
        let listed = try await alice.run(["notes", "list", "--passcode-fd", "3"], [Self.passcode])
        #expect(listed.status == 0 && listed.stdout.contains("kept"), "\(listed)")
    }

    @Test func doctorReportsTheServiceForAUserModeVaultOnlyWhenItsSocketExists() async throws {
        try await RealUsersTests.ensureUsers(SystemModeCommandsTests.users)
        let setup = try SystemModeRealUsersTests.Setup(users: SystemModeCommandsTests.users)
        let service = try await setup.startService()
        defer {
            service.terminateBlocking()
            try? FileManager.default.removeItem(atPath: setup.base)
        }
        let bob = SystemModeCommandsTests.bob
        func doctorService(_ socket: String) async throws -> [String: Any]? {
            let ran = try await setup.fingerlockSeparately(
                as: bob,
                ["--reader", "simulated", "--data-dir", setup.base + "/\(bob)/data", "--socket", socket, "doctor", "--json"])
            let findings = try #require(
                try JSONSerialization.jsonObject(with: Data(ran.stdout.utf8)) as? [[String: Any]], "\(ran)")
            return findings.first { $0["check"] as? String == "service" }
        }
        let seen = try #require(try await doctorService(setup.socket))
        #expect(seen["status"] as? String == "ok")
        #expect((seen["message"] as? String)?.contains("this vault is in user mode and does not use it") == true, "\(seen)")
        #expect(try await doctorService(setup.base + "/nothing-here") == nil)
        // A broken one is worth a warning, not an error: this vault does not need it.
        mkdir(setup.base + "/run4", 0o755)
        chown(setup.base + "/run4", RealUsersTests.uid(RealUsersTests.serviceUser), setup.gid(RealUsersTests.serviceUser))
        let newer = try await FakeService(setup, socket: setup.base + "/run4/protocol2", mode: "protocol2")
        defer { _ = newer }
        let warned = try #require(try await doctorService(setup.base + "/run4/protocol2"))
        #expect(warned["status"] as? String == "warning", "\(warned)")
        #expect((warned["message"] as? String)?.contains("speaks protocol 2") == true, "\(warned)")
    }

    @Test func rekeyInSystemModeSealsTheNewKeyThroughTheService() async throws {
        let alice = try await AliceVault()
        let home = alice.setup.base + "/\(alice.user)"
        let backup = home + "/before-rekey.flk"
        #expect(try await alice.run(["backup", backup, "--passcode-fd", "3"], [Self.passcode]).status == 0)

        let rekeyed = try await alice.run(["rekey", "--passcode-fd", "3"], [Self.passcode])
        #expect(rekeyed.status == 0, "\(rekeyed)")
        let newRecoveryKey = try #require(
            rekeyed.stdout.firstMatch(of: /([A-Z0-9]{4}-){12}[A-Z0-9]{4}/).map { String($0.output.0) })
        #expect(newRecoveryKey != alice.recoveryKey)
        #expect(try await alice.json(["status"])["mode"] as? String == "system")

        // The notes open with the passcode, through the service.
        let listed = try await alice.run(["notes", "list", "--passcode-fd", "3"], [Self.passcode])
        #expect(listed.status == 0 && listed.stdout.contains("kept"), "\(listed)")
        // Its counters still apply.
        let wrong = try await alice.run(["notes", "list", "--passcode-fd", "3"], ["not it"])
        #expect(wrong.stderr == "fingerlock: Wrong passcode (fingerlockd counts 1 wrong in a row).\n", "\(wrong)")
        #expect(try await alice.serviceStatus()["failedPasscodes"] as? Int == 1)
        #expect(try await alice.run(["notes", "list", "--passcode-fd", "3"], [Self.passcode]).status == 0)
        #expect(try await alice.serviceStatus()["failedPasscodes"] as? Int == 0)

        // The old recovery key no longer opens the vault.
        let oldRecovery = try await alice.run(
            ["passcode", "reset", "--passcode-fd", "3"], [alice.recoveryKey, "another passcode", "another passcode"])
        #expect(oldRecovery.status == 1, "\(oldRecovery)")

        // The old backup's passcode slot, put into the rekeyed vault, opens nothing.
        let swap = """
            import sqlite3, sys
            old = sqlite3.connect(sys.argv[1]).execute(
                "select parameters, wrapped from slots where name = 'system-passcode'").fetchone()
            vault = sqlite3.connect(sys.argv[2])
            vault.execute("update slots set parameters = ?, wrapped = ? where name = 'system-passcode'", old)
            vault.commit()
            """
        let (swapped, swapOutput) = try await runCommand(
            "/usr/sbin/runuser",
            ["-u", alice.user, "--", "/usr/bin/python3", "-c", swap, backup, alice.data + "/vault.sqlite"],
            mergingStandardError: true)
        try #require(swapped == 0, "\(swapOutput)")
        let withOldSlot = try await alice.run(["notes", "list", "--passcode-fd", "3"], [Self.passcode])
        #expect(withOldSlot.status != 0 && !withOldSlot.stdout.contains("kept"), "\(withOldSlot)")
    }

    @Test func restoreSaysWhatASystemModeBackupBringsBack() async throws {
        let alice = try await AliceVault()
        let home = alice.setup.base + "/\(alice.user)"
        let systemBackup = home + "/system.flk"
        #expect(try await alice.run(["backup", systemBackup, "--passcode-fd", "3"], [Self.passcode]).status == 0)

        // The same slot comes back: the current passcode opens it, and trying it counted nothing.
        var plan = try await alice.run(["restore", systemBackup, "--passcode-fd", "3"], [Self.passcode])
        #expect(plan.status == 64, "\(plan)")
        #expect(plan.stdout.contains("Passcode afterwards: unchanged (the current passcode opens it)."), "\(plan)")
        #expect(!plan.stdout.contains("Mode afterwards"))
        #expect(!plan.stdout.contains("Warning"))
        #expect(try await alice.serviceStatus()["failedPasscodes"] as? Int == 0)

        // Back in user mode, the service forgot the vault: the system-mode backup's passcode would
        // open nothing, and the plan says so before anything is replaced.
        #expect(try await alice.run(["system", "disable", "--passcode-fd", "3"], [Self.passcode]).status == 0)
        let userBackup = home + "/user.flk"
        #expect(try await alice.run(["backup", userBackup, "--passcode-fd", "3"], [Self.passcode]).status == 0)
        plan = try await alice.run(["restore", systemBackup, "--passcode-fd", "3"], [Self.passcode])
        #expect(plan.status == 64, "\(plan)")
        #expect(plan.stdout.contains("Mode afterwards: system (the passcode goes through fingerlockd), user now."))
        #expect(
            plan.stdout.contains(
                "Warning: fingerlockd has no secret for the backup's vault, so afterwards its passcode opens nothing; "
                    + "its recovery key does (`fingerlock passcode reset`)."), "\(plan)")
        #expect(plan.stdout.contains("Passcode afterwards: the passcode valid when the backup was made (it may differ"))

        // And it is so: restored, the passcode opens nothing (exit 4); the recovery key does.
        let restored = try await alice.run(["restore", systemBackup, "--yes", "--passcode-fd", "3"], [Self.passcode])
        #expect(restored.status == 0, "\(restored)")
        #expect(try await alice.json(["status"])["mode"] as? String == "system")
        let refused = try await alice.run(["notes", "list", "--passcode-fd", "3"], [Self.passcode])
        #expect(refused.status == 4 && refused.stderr.contains("no secret for this vault"), "\(refused)")
        let reset = try await alice.run(
            ["passcode", "reset", "--passcode-fd", "3"], [alice.recoveryKey, "new passcode 2", "new passcode 2"])
        #expect(reset.status == 0, "\(reset)")
        let listed = try await alice.run(["notes", "list", "--passcode-fd", "3"], ["new passcode 2"])
        #expect(listed.status == 0 && listed.stdout.contains("kept"), "\(listed)")

        // A user-mode backup over a system-mode vault takes it back to user mode, said first.
        #expect(try await alice.run(["system", "enable", "--passcode-fd", "3"], ["new passcode 2"]).status == 0)
        plan = try await alice.run(["restore", userBackup, "--passcode-fd", "3"], ["new passcode 2"])
        #expect(plan.status == 64, "\(plan)")
        #expect(plan.stdout.contains("Mode afterwards: user (the passcode opens it without fingerlockd), system now."))
        #expect(!plan.stdout.contains("Warning"))
    }
}
