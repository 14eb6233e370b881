import Foundation

/// A dbus-daemon of its own for one test, configured as a system bus that any user may connect to
/// and own names on: logind's and polkit's mocks and the real fprintd run on it. Stopped by PID.
public final class PrivateSystemBus: @unchecked Sendable {
    // Invariant: `process` is started in init and only killed by stop(), called from one task.
    public let directory: String
    public var address: String { "unix:path=\(directory)/system_bus_socket" }
    private let process = Process()

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Starts the daemon, listening in `directory` (which other users must be able to traverse).
    public init(in directory: String) async throws {
        self.directory = directory
        let config = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>system</type>
              <listen>unix:path=\(directory)/system_bus_socket</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow user="*"/>
                <allow own="*"/>
                <allow send_destination="*"/>
                <allow receive_sender="*"/>
              </policy>
            </busconfig>
            """
        try config.write(toFile: directory + "/bus.conf", atomically: false, encoding: .utf8)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        process.arguments = ["--config-file=\(directory)/bus.conf", "--nofork", "--nopidfile"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = ContinuousClock.now + .seconds(10)
        while !FileManager.default.fileExists(atPath: directory + "/system_bus_socket") {
            guard ContinuousClock.now < deadline, process.isRunning else {
                throw Failure(description: "dbus-daemon did not listen in \(directory)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        // The tests' real users and service users connect too.
        chmod(directory + "/system_bus_socket", 0o666)
    }

    /// SIGKILL: the daemon starts with the test runner's signal mask, which blocks SIGTERM.
    public func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    deinit { stop() }
}
