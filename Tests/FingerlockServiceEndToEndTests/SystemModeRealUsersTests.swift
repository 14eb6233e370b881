import FingerlockServiceTestSupport
import FingerlockTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 14, slice 2, through the built binaries with real users: `fingerlockd` runs as the service
/// user, `fingerlock` as Alice and Bob (runuser), each command a new process. Needs root, as CI runs.
/// Not serialized: each test has its own service, socket, state, homes and logind, and its own
/// keyring namespace in the users' kernel keyrings (`Setup`).
@Suite(.timed, .timeLimit(.minutes(6)))
struct SystemModeRealUsersTests {
    static let passcode = "correct horse 1"
    /// This suite's own login users (`RealUsersTests.ensureUsers`).
    static let alice = "flk-smru-alice"
    static let bob = "flk-smru-bob"
    static let users = [alice, bob]

    static var cliBinaryPath: String {
        URL(fileURLWithPath: DaemonProcess.binaryPath).deletingLastPathComponent().appendingPathComponent("fingerlock")
            .path
    }

    /// A world-traversable base with copies of both binaries, the service's run directory, and one
    /// private home per login user of `users` (the suite's).
    struct Setup {
        let base: String
        let cli: String
        let daemon: String
        /// The `FINGERLOCK_KEYRING_NAMESPACE` of every `fingerlock` this setup runs: a test's keys
        /// in its users' kernel keyrings are its own, and its `lock` forgets no other test's.
        let keyringNamespace = "test-\(UUID().uuidString)"
        var socket: String { base + "/run/socket" }

        init(users: [String]) throws {
            base = try TemporaryDirectory.make(in: "/tmp")
            chmod(base, 0o755)
            cli = base + "/fingerlock"
            daemon = base + "/fingerlockd"
            try ExecutableCopy.copy(SystemModeRealUsersTests.cliBinaryPath, to: cli)
            try ExecutableCopy.copy(DaemonProcess.binaryPath, to: daemon)
            chmod(cli, 0o755)
            chmod(daemon, 0o755)
            for run in ["run", "run2"] {
                mkdir(base + "/" + run, 0o755)
                chown(base + "/" + run, RealUsersTests.uid(RealUsersTests.serviceUser), gid(RealUsersTests.serviceUser))
            }
            for user in users { try home(user) }
        }

        func gid(_ name: String) -> gid_t { getpwnam(name)!.pointee.pw_gid }

        /// base/USER, 0700, the user's own.
        @discardableResult
        func home(_ user: String) throws -> String {
            let path = base + "/" + user
            if mkdir(path, 0o700) == 0 { chown(path, RealUsersTests.uid(user), gid(user)) }
            return path
        }

        /// The service as the service user; with `touches`, on the simulated reader that its own
        /// environment scripts (two touches enroll a finger).
        /// `logind`: the bus of a ``LogindMock`` that decides who may scan (without it, anyone may).
        func startService(_ run: String = "run", touches: String? = nil, logind: LogindMock? = nil) async throws
            -> DaemonProcess
        {
            try await DaemonProcess(
                socket: base + "/\(run)/socket", stateDirectory: base + "/\(run)/state", binary: daemon,
                asUser: RealUsersTests.serviceUser, extraArguments: touches == nil ? [] : ["--reader", "simulated"],
                environment: touches.map { ["FINGERLOCK_SIMULATED_TOUCHES": $0, "FINGERLOCK_SIMULATED_STAGES": "2"] }
                    ?? [:], logind: logind?.address)
        }

        /// `fingerlock ARGS` as `user`, with `passcodes` on fd 3 and `body` on stdin; status and
        /// stdout + stderr.
        func fingerlock(
            as user: String, _ arguments: [String], passcodes: [String] = [], body: String = "",
            environment: [String: String] = [:]
        ) async throws -> (status: Int32, output: String) {
            let ran = try await fingerlockSeparately(
                as: user, arguments, passcodes: passcodes, body: body, environment: environment)
            return (ran.status, ran.stdout + ran.stderr)
        }

        /// The same, with stdout and stderr apart.
        func fingerlockSeparately(
            as user: String, _ arguments: [String], passcodes: [String] = [], body: String = "",
            environment: [String: String] = [:]
        ) async throws -> CommandOutput {
            let id = UUID().uuidString
            let passFile = base + "/\(user)/pass-\(id)"
            let bodyFile = base + "/\(user)/body-\(id)"
            try (passcodes.map { $0 + "\n" }.joined()).write(toFile: passFile, atomically: false, encoding: .utf8)
            try body.write(toFile: bodyFile, atomically: false, encoding: .utf8)
            for file in [passFile, bodyFile] { chown(file, RealUsersTests.uid(user), gid(user)) }
            defer {
                unlink(passFile)
                unlink(bodyFile)
            }
            let variables = ["FINGERLOCK_KEYRING_NAMESPACE": keyringNamespace].merging(environment) { $1 }
            return try await runCommandSeparately(
                "/usr/sbin/runuser",
                [
                    "-u", user, "--", "/bin/sh", "-c", "p=$1; b=$2; shift 2; exec \"$@\" 3<\"$p\" <\"$b\"", "sh", passFile,
                    bodyFile, "/usr/bin/env",
                ] + variables.sorted(by: <).map { "\($0.key)=\($0.value)" } + [cli] + arguments,
                timeout: 90)
        }

        /// A copy of `source` (a data directory) owned by `user`, at base/USER/NAME.
        func copy(_ source: String, to user: String, named name: String) async throws -> String {
            let target = try home(user) + "/" + name
            let (status, _) = try await runCommand("/bin/cp", ["-a", source, target])
            try #require(status == 0)
            let (owned, _) = try await runCommand("/bin/chown", ["-R", "\(user):", target])
            try #require(owned == 0)
            return target
        }

        /// The service's view of a vault, asked by `user` with the python client.
        func serviceStatus(as user: String, socket: String, vault: String) async throws -> [String: Any] {
            let reply = try await rawCall(as: user, socket: socket, "io.fingerlock.Service.Status", "{\"vault\": \"\(vault)\"}")
            let parameters = (reply["parameters"] as? [String: Any]) ?? reply
            return (parameters["status"] as? [String: Any]) ?? parameters
        }

        /// One call by `user` with the bare python client (a process of the user's own, not fingerlock).
        func rawCall(as user: String, socket: String, _ method: String, _ parameters: String) async throws -> [String: Any] {
            let client = base + "/raw_client.py"
            if !FileManager.default.fileExists(atPath: client) {
                try FileManager.default.copyItem(atPath: fixtures + "/raw_client.py", toPath: client)
                chmod(client, 0o644)
            }
            let (status, output) = try await runCommand(
                "/usr/sbin/runuser", ["-u", user, "--", "/usr/bin/python3", client, socket, method, parameters])
            try #require(status == 0, "\(output)")
            return try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        }
    }

    /// The vault's store id, as the service knows it (lower case).
    static func storeID(_ dataDirectory: String) async throws -> String {
        let (status, output) = try await runCommand(
            "/usr/bin/python3",
            [
                "-c", "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('select store_id from meta').fetchone()[0])",
                dataDirectory + "/vault.sqlite",
            ])
        try #require(status == 0)
        return output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func systemModeThroughTheServiceWithRealUsers() async throws {
        try await RealUsersTests.ensureUsers(Self.users)
        let setup = try Setup(users: Self.users)
        var service = try await setup.startService()
        defer {
            service.terminateBlocking()
            try? FileManager.default.removeItem(atPath: setup.base)
        }
        let alice = Self.alice
        let bob = Self.bob
        let data = setup.base + "/\(alice)/data"
        let common = ["--reader", "simulated", "--data-dir", data, "--socket", setup.socket]
        func run(_ user: String, _ arguments: [String], _ passcodes: [String] = [], body: String = "") async throws -> (
            status: Int32, output: String
        ) {
            try await setup.fingerlock(as: user, arguments, passcodes: passcodes, body: body)
        }

        // A user-mode vault with a note, then system mode.
        let set = try await run(alice, common + ["passcode", "set", "--passcode-fd", "3"], [Self.passcode, Self.passcode])
        try #require(set.status == 0, "\(set.output)")
        let recoveryKey = try #require(
            set.output.firstMatch(of: /([A-Z0-9]{4}-){12}[A-Z0-9]{4}/).map { String($0.output.0) })
        let added = try await run(
            alice, common + ["notes", "add", "--title", "kept", "--passcode-fd", "3"], [Self.passcode], body: "body\n")
        try #require(added.status == 0, "\(added.output)")
        let enabled = try await run(alice, common + ["system", "enable", "--passcode-fd", "3"], [Self.passcode])
        try #require(enabled.status == 0, "\(enabled.output)")
        #expect(try await run(alice, common + ["status", "--json"]).output.contains("\"system\""))
        // The service holds no key yet: status says a touch needs the passcode first.
        let shown = try await run(alice, common + ["status"]).output
        #expect(shown.contains("state: locked: the passcode is needed before a touch unlocks"), "\(shown)")

        // The notes still open with the passcode, through the service, which then holds the key.
        let listed = try await run(alice, common + ["notes", "list", "--passcode-fd", "3"], [Self.passcode])
        #expect(listed.status == 0 && listed.output.contains("kept"), "\(listed.output)")
        let unlocked = try await run(alice, common + ["status", "--json"]).output
        #expect(unlocked.contains("\"unlocked\" : true") || unlocked.contains("\"unlocked\":true"), "\(unlocked)")
        #expect(try await run(alice, common + ["status"]).output.contains("state: unlocked for about"))

        // Wrong passcodes are counted by the service, across processes and across copies of the data.
        let vault = try await Self.storeID(data)
        for _ in 0..<2 {
            #expect(try await run(alice, common + ["notes", "list", "--passcode-fd", "3"], ["wrong passcode"]).status == 1)
        }
        #expect(try await setup.serviceStatus(as: alice, socket: setup.socket, vault: vault)["failedPasscodes"] as? Int == 2)
        let aliceCopy = try await setup.copy(data, to: alice, named: "copy")
        let copyOptions = ["--reader", "simulated", "--data-dir", aliceCopy]
        let fromCopy = try await run(
            alice, copyOptions + ["--socket", setup.socket, "notes", "list", "--passcode-fd", "3"], ["wrong again"])
        #expect(fromCopy.status == 1, "\(fromCopy.output)")
        #expect(try await setup.serviceStatus(as: alice, socket: setup.socket, vault: vault)["failedPasscodes"] as? Int == 3)

        // Bob, with a copy of Alice's vault and her passcode, gets nothing from the service.
        let bobCopy = try await setup.copy(data, to: bob, named: "data")
        let bobTry = try await run(
            bob,
            [
                "--reader", "simulated", "--data-dir", bobCopy, "--socket", setup.socket, "notes", "list",
                "--passcode-fd", "3",
            ], [Self.passcode])
        #expect(bobTry.status == 4 && !bobTry.output.contains("kept"), "\(bobTry.output)")

        // The copy plus the right passcode opens nothing without the service, nor with another one.
        let noService = try await run(
            alice, copyOptions + ["--socket", setup.base + "/none", "notes", "list", "--passcode-fd", "3"],
            [Self.passcode])
        #expect(noService.status == 4 && !noService.output.contains("kept"), "\(noService.output)")
        let other = try await setup.startService("run2")
        defer { other.terminateBlocking() }
        let otherSocket = setup.base + "/run2/socket"
        let otherTry = try await run(
            alice, copyOptions + ["--socket", otherSocket, "notes", "list", "--passcode-fd", "3"], [Self.passcode])
        #expect(otherTry.status == 4 && !otherTry.output.contains("kept"), "\(otherTry.output)")

        // The recovery key opens the copy anyway: reset, which (with no secret for it in that
        // service) puts the copy back in user mode with the new passcode.
        let reset = try await run(
            alice, copyOptions + ["--socket", otherSocket, "passcode", "reset", "--passcode-fd", "3"],
            [recoveryKey, "new passcode 2", "new passcode 2"])
        #expect(reset.status == 0, "\(reset.output)")
        let afterReset = try await run(
            alice, copyOptions + ["--socket", setup.base + "/none", "notes", "list", "--passcode-fd", "3"],
            ["new passcode 2"])
        #expect(afterReset.status == 0 && afterReset.output.contains("kept"), "\(afterReset.output)")

        // The service killed: exit 4, naming the fix.
        await service.kill9()
        let down = try await run(alice, common + ["notes", "list", "--passcode-fd", "3"], [Self.passcode])
        #expect(down.status == 4, "\(down.output)")
        #expect(down.output.contains(ServiceStartHint.here), "\(down.output)")
        #expect(down.output.contains("passcode reset"), "\(down.output)")

        // Restarted, it still counts Alice's three failures; the right passcode clears them.
        service = try await setup.startService()
        #expect(try await setup.serviceStatus(as: alice, socket: setup.socket, vault: vault)["failedPasscodes"] as? Int == 3)
        #expect(try await run(alice, common + ["notes", "list", "--passcode-fd", "3"], [Self.passcode]).status == 0)
        #expect(try await setup.serviceStatus(as: alice, socket: setup.socket, vault: vault)["failedPasscodes"] as? Int == 0)

        // system disable round-trips: user mode, the service forgot the vault, the notes intact.
        let disabled = try await run(alice, common + ["system", "disable", "--passcode-fd", "3"], [Self.passcode])
        #expect(disabled.status == 0, "\(disabled.output)")
        #expect(try await setup.serviceStatus(as: alice, socket: setup.socket, vault: vault)["registered"] as? Bool == false)
        let userMode = try await run(
            alice,
            [
                "--reader", "simulated", "--data-dir", data, "--socket", setup.base + "/none", "notes", "list",
                "--passcode-fd", "3",
            ], [Self.passcode])
        #expect(userMode.status == 0 && userMode.output.contains("kept"), "\(userMode.output)")
    }

    @Test func theServicesPasscodeDelayIsExitThreeWithTheTimeLeft() async throws {
        try await RealUsersTests.ensureUsers(Self.users)
        let setup = try Setup(users: Self.users)
        let service = try await setup.startService()
        defer {
            service.terminateBlocking()
            try? FileManager.default.removeItem(atPath: setup.base)
        }
        let bob = Self.bob
        let common = ["--reader", "simulated", "--data-dir", setup.base + "/\(bob)/data", "--socket", setup.socket]
        let set = try await setup.fingerlock(
            as: bob, common + ["passcode", "set", "--passcode-fd", "3"], passcodes: [Self.passcode, Self.passcode])
        try #require(set.status == 0, "\(set.output)")
        let enabled = try await setup.fingerlock(
            as: bob, common + ["system", "enable", "--passcode-fd", "3"], passcodes: [Self.passcode])
        try #require(enabled.status == 0, "\(enabled.output)")
        // Five wrong passcodes, each from a new process: the fifth starts the service's 1-minute delay.
        for _ in 0..<5 {
            let wrong = try await setup.fingerlock(
                as: bob, common + ["notes", "list", "--passcode-fd", "3"], passcodes: ["not the passcode"])
            #expect(wrong.status == 1, "\(wrong.output)")
        }
        // Now even the right passcode is refused at once, with the time left: exit 3 (locked_out).
        let delayed = try await setup.fingerlock(
            as: bob, common + ["notes", "list", "--passcode-fd", "3"], passcodes: [Self.passcode])
        #expect(delayed.status == 3, "\(delayed.output)")
        #expect(delayed.output.contains("try again in"), "\(delayed.output)")
    }
}
