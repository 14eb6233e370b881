public import Foundation
import Synchronization

/// Debian's real polkitd (`/usr/lib/polkit-1/polkitd`, polkitd 122) for one test, on a
/// ``PrivateSystemBus`` of its own, running only the rules files it is given; ``check(_:as:)`` asks
/// it with `pkcheck` as a real user. python3-dbusmock's polkit runs no rules, so a shipped rule is
/// tested only here. Everything is started here and stopped by PID in ``stop()``.
///
/// polkitd has no option naming its rules directories: it always reads /etc/polkit-1/rules.d and
/// /usr/share/polkit-1/rules.d. So it runs in a mount namespace of its own (`unshare --mount`), where
/// a directory holding copies of the given rules is bind-mounted over the second and an empty one
/// over the first: the machine's rules (50-default.rules, systemd's, packagekit's) are not loaded,
/// the machine's directories are never touched, and the mounts go when polkitd does. Its action
/// definitions (/usr/share/polkit-1/actions, fprintd's among them) stay the machine's.
///
/// Assumes root (unshare and mount; polkitd itself must start as root: it switches to the user
/// `polkitd` by itself, and started as `polkitd` it fails clearing its groups) and the `polkitd`
/// user (Debian's polkitd package makes it; without it polkitd exits "Error switching to user
/// polkitd"). The private bus lets any user own any name, so polkitd may own
/// org.freedesktop.PolicyKit1 there. Root as the subject is always authorized by polkitd, so
/// checks are made as other users.
public final class RealPolkit: @unchecked Sendable {
    // Invariant: `polkitd` is started in init and only killed by stop(), called from one task.
    public let directory: String
    public var address: String { bus.address }
    private let bus: PrivateSystemBus
    private let polkitd = Process()
    private var stopped = false

    /// pkcheck's answer, from its exit status.
    public enum Answer: Sendable, Equatable {
        /// 0.
        case authorized
        /// 1: refused outright (what `no` in an action's defaults gives).
        case notAuthorized
        /// 2: an authentication agent could obtain it (`auth_self`, `auth_admin`), and pkcheck was
        /// not allowed to ask one.
        case needsAuthentication
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Starts polkitd with exactly the rules files `rules` (each name must end in `.rules`, or
    /// polkitd skips it) and waits until it owns its name on the bus.
    public init(rules: [URL]) async throws {
        // /tmp, not TMPDIR: polkitd (as `polkitd`) and the checking users must traverse it.
        let directory = "/tmp/fl-polkit-\(UUID().uuidString.prefix(8))"
        self.directory = directory
        do {
            try Self.copy(rules, into: directory)
            bus = try await PrivateSystemBus(in: directory)
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
        do {
            try await start()
        } catch {
            stop()
            throw error
        }
    }

    /// `directory/rules` with copies of `rules`, world-readable (polkitd reads them as `polkitd`,
    /// and the repository may be in a directory only its owner may enter), and `directory/empty`.
    private static func copy(_ rules: [URL], into directory: String) throws {
        for path in [directory + "/rules", directory + "/empty"] {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            chmod(path, 0o755)
        }
        chmod(directory, 0o755)
        for rule in rules {
            let copy = directory + "/rules/" + rule.lastPathComponent
            try FileManager.default.copyItem(atPath: rule.path, toPath: copy)
            chmod(copy, 0o644)
        }
    }

    private func start() async throws {
        let log = directory + "/polkitd.log"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        // unshare and sh exec, so the PID is polkitd's own. `--propagation private`: the bind mounts
        // never reach the machine's namespace, even where / is a shared mount (systemd's default).
        polkitd.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        polkitd.arguments = [
            "--mount", "--propagation", "private", "/bin/sh", "-c",
            #"mount --bind "$1" /usr/share/polkit-1/rules.d && mount --bind "$2" /etc/polkit-1/rules.d && exec /usr/lib/polkit-1/polkitd"#,
            "sh", directory + "/rules", directory + "/empty",
        ]
        polkitd.environment = ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "DBUS_SYSTEM_BUS_ADDRESS": bus.address, "LC_ALL": "C"]
        polkitd.standardInput = FileHandle.nullDevice
        polkitd.standardOutput = output
        polkitd.standardError = output
        try polkitd.run()
        try? output.close()
        // polkitd prints this (flushed) once its rules ran and it owns org.freedesktop.PolicyKit1;
        // it answers no question before.
        let deadline = ContinuousClock.now + .seconds(10)
        while !self.log.contains("Acquired the name org.freedesktop.PolicyKit1") {
            guard ContinuousClock.now < deadline, polkitd.isRunning else {
                throw Failure(description: "polkitd did not come up on \(bus.address): \(self.log)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    deinit { stop() }

    /// What polkitd printed: which directories it read, each rule file it could not compile, and
    /// "Finished loading, compiling and executing N rules".
    public var log: String { (try? String(contentsOfFile: directory + "/polkitd.log", encoding: .utf8)) ?? "" }

    /// Asks polkitd whether `user` may do `action`: `pkcheck --process` run as `user` (uid, gid, no
    /// supplementary groups) with pkcheck itself as the subject, a live process of that user whose
    /// /proc polkitd can read. No `--allow-user-interaction`: there is no agent.
    public func check(_ action: String, as user: String) async throws -> Answer {
        guard let entry = getpwnam(user) else { throw Failure(description: "no user \(user)") }
        let uid = entry.pointee.pw_uid
        let gid = entry.pointee.pw_gid
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = [
            "--reuid", "\(uid)", "--regid", "\(gid)", "--clear-groups", "/bin/sh", "-c",
            #"exec /usr/bin/pkcheck --action-id "$1" --process $$"#, "sh", action,
        ]
        process.environment = ["PATH": "/usr/bin:/bin", "DBUS_SYSTEM_BUS_ADDRESS": bus.address, "LC_ALL": "C"]
        // Through a file, so no pool thread waits on a pipe.
        let errors = directory + "/pkcheck-\(UUID().uuidString.prefix(8)).err"
        _ = FileManager.default.createFile(atPath: errors, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: errors) }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = handle
        try process.run()
        try? handle.close()
        try await process.waitForExit()
        switch process.terminationStatus {
        case 0: return .authorized
        case 1: return .notAuthorized
        case 2: return .needsAuthentication
        case let status:
            let said = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
            throw Failure(description: "pkcheck \(action) as \(user) exited \(status): \(said)")
        }
    }

    /// SIGKILL, as ``PrivateSystemBus`` does (the runner's signal mask blocks SIGTERM in children).
    public func stop() {
        guard !stopped else { return }
        stopped = true
        if polkitd.isRunning {
            kill(polkitd.processIdentifier, SIGKILL)
            polkitd.waitUntilExit()
        }
        bus.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Makes the user `name` unless it exists (idempotent, once per test process and name; tests
    /// asking together share one `useradd`). A system user (`--system`) or a login user, with no
    /// shell and no home made (`home` is only what /etc/passwd says). Other suites add users at the
    /// same time: a locked /etc/passwd is waited out.
    public static func ensureUser(_ name: String, system: Bool, home: String? = nil) async throws {
        let preparation = users.withLock { tasks in
            if let task = tasks[name] { return task }
            let task = Task { try await addUser(name, system: system, home: home) }
            tasks[name] = task
            return task
        }
        try await preparation.value
    }

    private static let users = Mutex<[String: Task<Void, any Error>]>([:])

    private static func addUser(_ name: String, system: Bool, home: String?) async throws {
        let arguments =
            (system ? ["--system"] : []) + (home.map { ["--home-dir", $0] } ?? [])
            + ["--no-create-home", "--shell", "/usr/sbin/nologin", name]
        for _ in 0..<10 where getpwnam(name) == nil {
            let useradd = Process()
            useradd.executableURL = URL(fileURLWithPath: "/usr/sbin/useradd")
            useradd.arguments = arguments
            useradd.standardInput = FileHandle.nullDevice
            useradd.standardOutput = FileHandle.nullDevice
            useradd.standardError = FileHandle.nullDevice
            try useradd.run()
            try await useradd.waitForExit()
            if useradd.terminationStatus == 0 { break }
            try await Task.sleep(for: .milliseconds(500))
        }
        guard getpwnam(name) != nil else { throw Failure(description: "useradd \(name) failed") }
    }
}
