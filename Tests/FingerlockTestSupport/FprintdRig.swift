import FingerprintTestSupport
public import Foundation

/// The real fprintd for one test, on a private system bus of its own: dbus-daemon (any user may
/// connect), python3-dbusmock's polkit (narrowed with ``allow(_:)``) and `/usr/libexec/fprintd`
/// with libfprint's `virtual_device` behind it, its prints in the rig's directory (never the
/// machine's /var/lib/fprint). Everything is started here and stopped by PID in ``stop()``.
public final class FprintdRig: @unchecked Sendable {
    // Invariant: the processes are started in init and changed only by stopFprintd()/startFprintd()
    // and stop(), which a test calls from one task at a time.
    public let directory: String
    public var address: String { bus.address }
    /// libfprint's virtual_device socket: touches are fed here (`VirtualDeviceSocket`).
    public var virtualDevice: String { directory + "/vd.sock" }
    private let bus: PrivateSystemBus
    private let polkit = Process()
    private var fprintd: Process?
    private var stopped = false

    public static let verify = "net.reactivated.fprint.device.verify"
    public static let enroll = "net.reactivated.fprint.device.enroll"
    public static let setUsername = "net.reactivated.fprint.device.setusername"

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// - Parameters:
    ///   - withFprintd: false for a bus with polkit but without fprintd (fprintd not installed).
    ///   - allowed: the polkit actions granted to every caller (verify and enroll: a desktop user).
    public init(withFprintd: Bool = true, allowed: [String] = [FprintdRig.verify, FprintdRig.enroll]) async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("fl-fpd-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory + "/state", withIntermediateDirectories: true)
        chmod(directory, 0o755)
        bus = try await PrivateSystemBus(in: directory)
        try Self.launch(polkit, "/usr/bin/python3", ["-m", "dbusmock", "--system", "--template", "polkitd"], ["DBUS_SYSTEM_BUS_ADDRESS": address])
        guard try await Self.poll({ (try? self.allowNow(allowed)) != nil }) else {
            throw Failure(description: "dbusmock's polkit did not come up on \(address)")
        }
        if withFprintd { try await startFprintd() }
    }

    deinit { stop() }

    /// Grants exactly `actions` to every caller from now on.
    public func allow(_ actions: [String]) throws { try allowNow(actions) }

    private func allowNow(_ actions: [String]) throws {
        let list = actions.isEmpty ? "array:string:" : "array:string:" + actions.joined(separator: ",")
        let status = try run(
            "/usr/bin/dbus-send",
            [
                "--system", "--print-reply", "--dest=org.freedesktop.PolicyKit1", "/org/freedesktop/PolicyKit1/Authority",
                "org.freedesktop.DBus.Mock.SetAllowed", list,
            ])
        guard status == 0 else { throw Failure(description: "SetAllowed failed (\(status))") }
    }

    /// Starts fprintd (again), with libfprint's virtual_device at ``virtualDevice``.
    public func startFprintd() async throws {
        let process = Process()
        try Self.launch(
            process, "/usr/libexec/fprintd", ["--no-timeout"],
            [
                "DBUS_SYSTEM_BUS_ADDRESS": address, "FP_VIRTUAL_DEVICE": virtualDevice, "STATE_DIRECTORY": directory + "/state",
                "FP_DRIVERS_WHITELIST": "virtual_device", "G_MESSAGES_DEBUG": "",
            ], log: directory + "/fprintd.log")
        fprintd = process
        guard
            try await Self.poll({
                (try? self.run(
                    "/usr/bin/busctl",
                    [
                        "--address=\(self.address)", "call", "net.reactivated.Fprint",
                        "/net/reactivated/Fprint/Manager", "net.reactivated.Fprint.Manager", "GetDevices",
                    ])) == 0
            })
        else {
            throw Failure(
                description: "fprintd did not come up: " + ((try? String(contentsOfFile: directory + "/fprintd.log", encoding: .utf8)) ?? ""))
        }
    }

    /// Kills fprintd (SIGKILL: as a crash; SIGTERM: as a stop) and waits for it to be gone.
    public func stopFprintd(signal: Int32 = SIGTERM) {
        guard let fprintd, fprintd.isRunning else { return }
        kill(fprintd.processIdentifier, signal)
        fprintd.waitUntilExit()
        self.fprintd = nil
    }

    /// Enrolls `finger` with fprintd (as root, for root or for `username`: what the desktop's
    /// settings do for a user), libfprint's virtual_device scanning `id` at each of its five stages.
    public func enroll(_ finger: String, scanning id: String, for username: String? = nil) async throws {
        let enrolling = try start("/usr/bin/fprintd-enroll", ["-f", finger] + (username.map { [$0] } ?? []))
        let socket = VirtualDeviceSocket(path: virtualDevice)
        try await socket.send(.sleep(milliseconds: 0))
        for _ in 0..<5 { try await socket.send(.scan(id)) }
        while enrolling.isRunning { try await Task.sleep(for: .milliseconds(20)) }
        guard enrolling.terminationStatus == 0 else { throw Failure(description: "fprintd-enroll \(finger) failed") }
    }

    /// Runs `fprintd-enroll`, `fprintd-list`… against this rig's bus (as root, for root); its status.
    @discardableResult
    public func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws -> Int32 {
        let process = Process()
        try Self.launch(process, executable, arguments, environment.merging(["DBUS_SYSTEM_BUS_ADDRESS": address]) { $1 })
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// How many connections the process `pid` has on the rig's bus (by what the bus knows of each
    /// connection's process, so the rig's own `busctl` calls, coming and going, are not counted).
    public func connections(of pid: pid_t) throws -> Int {
        let names = try busctl("ListNames").split(whereSeparator: \.isWhitespace).filter { $0.hasPrefix("\":") }
        return names.filter { name in
            // `u 1234`; a name gone meanwhile is no connection of `pid`'s.
            let answer = try? busctl("GetConnectionUnixProcessID", "s", String(name.dropFirst().dropLast()))
            return answer?.split(whereSeparator: \.isWhitespace).last.flatMap { pid_t($0) } == pid
        }.count
    }

    /// The bus's own answer to `method` (busctl's text form).
    private func busctl(_ method: String, _ arguments: String...) throws -> String {
        let log = directory + "/busctl-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: log) }
        let process = Process()
        try Self.launch(
            process, "/usr/bin/busctl",
            ["--address=\(address)", "call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", method]
                + arguments, [:], log: log)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw Failure(description: "\(method) failed") }
        return try String(contentsOfFile: log, encoding: .utf8)
    }

    /// Starts `executable` against this rig's bus without waiting for it.
    public func start(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws -> Process {
        let process = Process()
        try Self.launch(process, executable, arguments, environment.merging(["DBUS_SYSTEM_BUS_ADDRESS": address]) { $1 })
        return process
    }

    public func stop() {
        guard !stopped else { return }
        stopped = true
        for process in [fprintd, polkit].compactMap({ $0 }) where process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        bus.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    private static func launch(
        _ process: Process, _ executable: String, _ arguments: [String], _ environment: [String: String], log: String? = nil
    ) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        // A clean environment, never the test process's own: the libfprint tests set FP_VIRTUAL_*
        // process-wide, and an fprintd that inherited one would open another test's device.
        process.environment = ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8"].merging(environment) { $1 }
        process.standardInput = FileHandle.nullDevice
        var opened: FileHandle?
        if let log {
            _ = FileManager.default.createFile(atPath: log, contents: nil)
            opened = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
            process.standardOutput = opened
            process.standardError = opened
        } else {
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
        }
        try process.run()
        // The child has its own copy: the Process would keep this one open past its end.
        try? opened?.close()
    }

    /// Polls `condition` every 20 ms for up to 10 s, without blocking the cooperative pool.
    public static func poll(_ condition: () throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if try condition() { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return try condition()
    }
}
