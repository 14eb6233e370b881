import Crypto
import FingerlockServiceTestSupport
import FingerlockTestSupport
import Foundation
import Synchronization
import Testing

@testable import FingerlockService

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 14's properties with real users: `fingerlockd` runs as a system user, clients as two login
/// users (setpriv/runuser), each a separate process, so SO_PEERCRED names them. Needs root (as CI
/// runs); not skipped otherwise, it fails saying so. Not serialized: each test has its own service,
/// socket and state, and the users' only other state, their kernel keyrings, this suite leaves alone
/// (raw clients only).
@Suite(.timed, .timeLimit(.minutes(3)))
struct RealUsersTests {
    static let serviceUser = "fingerlockd-test"
    /// This suite's own login users. Each real-users suite has its own pair (`ensureUsers`), as
    /// suites run side by side: a user's kernel keyring and per-user limits are then no other
    /// suite's business.
    static let alice = "flk-ru-alice"
    static let bob = "flk-ru-bob"

    /// The service user and the login users `logins` (this suite's by default), made ready once
    /// per test process (`ready`): the tests of a suite run side by side and ask together.
    static func ensureUsers(_ logins: [String] = [alice, bob]) async throws {
        try #require(geteuid() == 0, "RealUsersTests create users and switch to them: run as root (CI does).")
        for (name, system) in [(serviceUser, true)] + logins.map({ ($0, false) }) {
            let preparation = ready.withLock { tasks in
                if let task = tasks[name] { return task }
                let task = Task { try await prepare(name, system: system) }
                tasks[name] = task
                return task
            }
            try await preparation.value
        }
    }

    /// Each user's preparation, started by the first test that needs the user; the others await it.
    private static let ready = Mutex<[String: Task<Void, any Error>]>([:])

    /// Creates `name` unless it exists (idempotent). Other suites add their users at the same time:
    /// a locked /etc/passwd is waited out. A login user's fingerlock keys left in its kernel keyring
    /// by earlier runs go: each test keeps its own under a namespace of its own, which its `lock`
    /// alone does not clear, and a user's keyring holds only 200 keys (20000 bytes).
    private static func prepare(_ name: String, system: Bool) async throws {
        let arguments = (system ? ["--system"] : []) + ["--no-create-home", "--shell", "/usr/sbin/nologin", name]
        for _ in 0..<10 where getpwnam(name) == nil {
            if try await runCommand("/usr/sbin/useradd", arguments).status == 0 { break }
            try await Task.sleep(for: .milliseconds(500))
        }
        guard getpwnam(name) != nil else { throw DaemonProcess.Failure(description: "useradd \(name) failed") }
        if !system && FileManager.default.isExecutableFile(atPath: "/usr/bin/keyctl") {
            try await runCommand("/usr/sbin/runuser", ["-u", name, "--", "/usr/bin/keyctl", "purge", "-p", "user", "fingerlock"])
        }
    }

    static func uid(_ name: String) -> UInt32 { getpwnam(name)!.pointee.pw_uid }

    /// A world-traversable directory holding the binary, the client script and a service-owned
    /// directory for the socket and the state.
    struct Setup {
        let base: String
        let binary: String
        let client: String
        var socket: String { base + "/run/socket" }
        var state: String { base + "/run/state" }

        init() throws {
            base = try TemporaryDirectory.make(in: "/tmp")
            chmod(base, 0o755)
            // Copies, so no directory of the build (maybe private) has to be reachable by the users.
            binary = base + "/fingerlockd"
            client = base + "/raw_client.py"
            try ExecutableCopy.copy(DaemonProcess.binaryPath, to: binary)
            try FileManager.default.copyItem(atPath: fixtures + "/raw_client.py", toPath: client)
            try FileManager.default.copyItem(
                atPath: fixtures + "/hold_connections.py", toPath: base + "/hold_connections.py")
            chmod(base + "/hold_connections.py", 0o644)
            chmod(binary, 0o755)
            chmod(client, 0o644)
            mkdir(base + "/run", 0o755)
            chown(base + "/run", uid(serviceUser), getpwnam(serviceUser)!.pointee.pw_gid)
        }

        func startService() async throws -> DaemonProcess {
            try await DaemonProcess(socket: socket, stateDirectory: state, binary: binary, asUser: serviceUser)
        }

        /// One call from a new process of `user`; the reply object.
        func call(as user: String, _ method: String, _ parameters: [String: Any]) async throws -> [String: Any] {
            let json = String(decoding: try JSONSerialization.data(withJSONObject: parameters), as: UTF8.self)
            let (status, output) = try await runCommand(
                "/usr/sbin/runuser",
                ["-u", user, "--", "/usr/bin/python3", client, socket, "io.fingerlock.Service." + method, json])
            try #require(status == 0, "client as \(user) failed: \(output)")
            return try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        }

        /// Whether `user` can run `command` successfully (as a shell command line).
        func can(_ user: String, _ command: String) async throws -> Bool {
            try await runCommand("/usr/sbin/runuser", ["-u", user, "--", "/bin/sh", "-c", command]).status == 0
        }
    }

    struct Vault {
        let id = UUID().uuidString
        let stretched = Data((0..<32).map { _ in UInt8.random(in: 0...255) })
        let key = Data((0..<32).map { _ in UInt8.random(in: 0...255) })
        let ad = Data("slot table".utf8)
        var slot = ""

        func unlock(_ stretched: Data? = nil, cache: Int = 3600) -> [String: Any] {
            [
                "vault": id, "stretched": (stretched ?? self.stretched).base64EncodedString(), "sealedSlot": slot,
                "associatedData": ad.base64EncodedString(), "cacheSeconds": cache,
            ]
        }
    }

    @Test func oneUsersIdleConnectionsNeverLockAnotherUserOut() async throws {
        try await Self.ensureUsers()
        let setup = try Setup()
        let service = try await setup.startService()
        defer {
            service.terminateBlocking()
            try? FileManager.default.removeItem(atPath: setup.base)
        }
        // Alice holds 40 idle connections (the per-user limit is 32) for a few seconds...
        let output = setup.base + "/hold.out"
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/sbin/runuser")
        holder.arguments = [
            "-u", Self.alice, "--", "/usr/bin/python3", setup.base + "/hold_connections.py", setup.socket, "40", "3",
        ]
        holder.standardOutput = FileHandle(forWritingAtPath: output)
        holder.standardError = FileHandle.nullDevice
        try holder.run()
        // The child has its own copy: the Process would keep this one open past its end.
        try? (holder.standardOutput as? FileHandle)?.close()
        defer { if holder.isRunning { kill(holder.processIdentifier, SIGKILL) } }
        var report = ""
        _ = try await poll(timeout: .seconds(5)) {
            report = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            return report.contains("refused")
        }
        #expect(report.contains("\"refused\": 8"), "\(report)")
        // ...while Bob is served at once.
        let vault = UUID().uuidString
        #expect(try await setup.call(as: Self.bob, "RegisterVault", ["vault": vault]).parameters["created"] as? Bool == true)
        #expect(holder.isRunning, "the idle connections were still held during Bob's call")
    }

    @Test func usersAreIsolatedCountersSurviveAndStateIsOutOfTheirReach() async throws {
        try await Self.ensureUsers()
        let setup = try Setup()
        var service = try await setup.startService()
        defer {
            service.terminateBlocking()
            try? FileManager.default.removeItem(atPath: setup.base)
        }

        let vault = try await setup.sealedVault(as: Self.alice)
        let unlocked = try await setup.call(as: Self.alice, "UnlockWithPasscode", vault.unlock())
        #expect(unlocked.parameters["key"] as? String == vault.key.base64EncodedString())

        // Bob: cannot see, lock, unlock or forget Alice's vault, even with her passcode and slot.
        let bobStatus = try #require(
            try await setup.call(as: Self.bob, "Status", ["vault": vault.id]).parameters["status"] as? [String: Any])
        #expect(bobStatus["registered"] as? Bool == false)
        #expect(
            try await setup.call(as: Self.bob, "UnlockWithPasscode", vault.unlock()).errorName
                == "io.fingerlock.Service.VaultNotRegistered")
        #expect(try await setup.call(as: Self.bob, "Lock", ["vault": vault.id]).parameters["wasUnlocked"] as? Bool == false)
        var proof = vault.unlock()
        proof["cacheSeconds"] = nil
        #expect(
            try await setup.call(as: Self.bob, "ForgetVault", proof).errorName == "io.fingerlock.Service.VaultNotRegistered")
        // Registering the same id gives Bob his own vault; his guesses count against it, not hers.
        #expect(
            try await setup.call(as: Self.bob, "RegisterVault", ["vault": vault.id]).parameters["created"] as? Bool == true)
        #expect(
            try await setup.call(as: Self.bob, "UnlockWithPasscode", vault.unlock()).errorName
                == "io.fingerlock.Service.WrongPasscode")
        var aliceStatus = try #require(
            try await setup.call(as: Self.alice, "Status", ["vault": vault.id]).parameters["status"] as? [String: Any])
        #expect(aliceStatus["unlocked"] as? Bool == true)
        #expect(aliceStatus["failedPasscodes"] as? Int == 0)

        // Alice's wrong passcodes, each from a new process and connection, are counted and delayed.
        for attempt in 1...5 {
            let reply = try await setup.call(
                as: Self.alice, "UnlockWithPasscode", vault.unlock(Data(repeating: 1, count: 32)))
            #expect(reply.errorName == "io.fingerlock.Service.WrongPasscode")
            #expect(reply.parameters["failedPasscodes"] as? Int == attempt)
        }
        let delayed = try await setup.call(as: Self.alice, "UnlockWithPasscode", vault.unlock())
        #expect(delayed.errorName == "io.fingerlock.Service.PasscodeDelayed")
        #expect((delayed.parameters["secondsLeft"] as? Int ?? 0) > 50)

        // The state is the service user's, private, and out of Alice's reach: she can neither read
        // nor remove the counters or the secret.
        let serviceUID = Self.uid(Self.serviceUser)
        let vaultDirectory = "\(setup.state)/v1/\(Self.uid(Self.alice))/\(vault.id.lowercased())"
        for (path, expected) in [
            (setup.state, 0o700), (setup.state + "/v1", 0o700), (vaultDirectory, 0o700),
            (vaultDirectory + "/secret", 0o600), (vaultDirectory + "/attempts", 0o600),
        ] {
            var info = stat()
            #expect(lstat(path, &info) == 0, "\(path)")
            #expect(Int(info.st_mode & 0o777) == expected, "\(path)")
            #expect(info.st_uid == serviceUID, "\(path)")
        }
        #expect(try await !setup.can(Self.alice, "ls '\(setup.state)'"))
        #expect(try await !setup.can(Self.alice, "cat '\(vaultDirectory)/secret'"))
        #expect(
            try await !setup.can(Self.alice, "rm -f '\(vaultDirectory)/attempts' && test ! -e '\(vaultDirectory)/attempts'"))
        #expect(try await !setup.can(Self.alice, "rm -rf '\(setup.state)/v1' && test ! -e '\(setup.state)/v1'"))
        #expect(try await !setup.can(Self.alice, "cat /proc/\(service.process.processIdentifier)/environ"))

        // The sealed slot plus the right passcode opens nothing without the service's secret.
        let sealed = try #require(Data(base64Encoded: vault.slot))
        let withoutSecret = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: vault.stretched),
            info: Data((SystemPasscodeSlot.info + vault.id.lowercased()).utf8), outputByteCount: 32)
        #expect(SystemPasscodeSlot.open(sealed, with: withoutSecret, authenticating: vault.ad) == nil)
        // (With the secret, which only the service user, or root, can read, it does.)
        let secret = SymmetricKey(data: try Data(contentsOf: URL(fileURLWithPath: vaultDirectory + "/secret")))
        let kek = SystemPasscodeSlot.keyEncryptionKey(
            stretched: SymmetricKey(data: vault.stretched), secret: secret, vault: vault.id.lowercased())
        #expect(
            SystemPasscodeSlot.open(sealed, with: kek, authenticating: vault.ad)?.withUnsafeBytes { Data($0) }
                == vault.key)

        // SIGTERM: a clean exit; the restarted service holds no key, and the counters and the delay remain.
        #expect(await service.terminate() == 0, "\(service.log)")
        service = try await setup.startService()
        aliceStatus = try #require(
            try await setup.call(as: Self.alice, "Status", ["vault": vault.id]).parameters["status"] as? [String: Any])
        #expect(aliceStatus["registered"] as? Bool == true)
        #expect(aliceStatus["unlocked"] as? Bool == false)
        #expect(aliceStatus["failedPasscodes"] as? Int == 5)
        #expect((aliceStatus["delaySeconds"] as? Int ?? 0) > 0)
        #expect(
            try await setup.call(as: Self.alice, "UnlockWithPasscode", vault.unlock()).errorName
                == "io.fingerlock.Service.PasscodeDelayed")
        // The socket is reachable by every user; the log never carries a key or a passcode value.
        var info = stat()
        #expect(lstat(setup.socket, &info) == 0 && info.st_mode & 0o777 == 0o666)
        for secretText in [vault.key.base64EncodedString(), vault.stretched.base64EncodedString(), vault.slot] {
            #expect(!service.log.contains(secretText))
        }
    }
}
