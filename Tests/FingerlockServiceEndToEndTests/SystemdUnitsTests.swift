import FingerlockServiceTestSupport
import FingerlockTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The shipped units, checked by systemd's own tools (no running systemd needed), and socket
/// activation through `systemd-socket-activate`, which passes fd 3 as systemd does.
@Suite(.timed, .serialized, .timeLimit(.minutes(2)))
struct SystemdUnitsTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// The units copied to a temporary directory with ExecStart pointing at the built binary
    /// (`verify` checks that it exists).
    static func units() throws -> String {
        let directory = try TemporaryDirectory.make()
        for name in ["fingerlockd.socket", "fingerlockd.service"] {
            var text = try String(contentsOfFile: repository + "/systemd/" + name, encoding: .utf8)
            text = text.replacingOccurrences(
                of: "ExecStart=/usr/local/bin/fingerlockd", with: "ExecStart=" + DaemonProcess.binaryPath)
            try text.write(toFile: directory + "/" + name, atomically: false, encoding: .utf8)
        }
        return directory
    }

    static let analyze = "/usr/bin/systemd-analyze"

    @Test func theUnitsVerify() async throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: Self.analyze),
            "systemd-analyze is missing: .ci/install-deps installs systemd")
        let directory = try Self.units()
        let (status, output) = try await runCommand(
            Self.analyze,
            ["verify", "--man=no", directory + "/fingerlockd.socket", directory + "/fingerlockd.service"],
            mergingStandardError: true)
        #expect(status == 0, "\(output)")
        #expect(output.isEmpty, "\(output)")
    }

    @Test func theServiceExposureIsAtMostTwo() async throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: Self.analyze),
            "systemd-analyze is missing: .ci/install-deps installs systemd")
        let directory = try Self.units()
        let (status, output) = try await runCommand(
            Self.analyze,
            ["security", "--offline=yes", "--threshold=20", "--no-pager", directory + "/fingerlockd.service"])
        #expect(status == 0, "\(output)")
        let line = try #require(output.split(separator: "\n").first { $0.contains("Overall exposure level") })
        let score = try #require(line.split(separator: ":").last?.split(separator: " ").first.flatMap { Double($0) })
        #expect(score <= 2.0, "\(line)")
    }

    @Test func theSysusersLineNamesTheServiceUser() async throws {
        let text = try String(contentsOfFile: Self.repository + "/systemd/fingerlockd.sysusers", encoding: .utf8)
        let entry = try #require(text.split(separator: "\n").first { $0.hasPrefix("u ") })
        #expect(entry.split(separator: " ")[1] == "fingerlockd")
        let service = try String(contentsOfFile: Self.repository + "/systemd/fingerlockd.service", encoding: .utf8)
        #expect(service.contains("\nUser=fingerlockd\n"))
    }

    @Test func socketActivationServesTheInheritedSocket() async throws {
        let activate = "/usr/bin/systemd-socket-activate"
        try #require(
            FileManager.default.isExecutableFile(atPath: activate),
            "systemd-socket-activate is missing: .ci/install-deps installs systemd")
        let directory = try TemporaryDirectory.make()
        let socket = directory + "/socket"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: activate)
        process.arguments = ["-l", socket, DaemonProcess.binaryPath, "--state-dir", directory + "/state"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        var reply: [String: Any]?
        _ = try await poll(timeout: .seconds(10), every: .milliseconds(20)) {
            reply = try? VarlinkTestClient(path: socket).call("org.varlink.service.GetInfo")
            return reply != nil
        }
        #expect(reply?.parameters["product"] as? String == "fingerlockd")
        // systemd-socket-activate execs the service in its own process: SIGTERM reaches fingerlockd.
        kill(process.processIdentifier, SIGTERM)
        _ = try await poll(timeout: .seconds(5)) { !process.isRunning }
        #expect(!process.isRunning)
        #expect(process.terminationStatus == 0)
    }
}
