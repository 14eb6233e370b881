import FingerlockServiceTestSupport
import FingerlockTestSupport
import FingerprintTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// fingerlockd on libfprint's `virtual_device` (real libfprint code paths, the socket standing in
/// for the finger), with the CLI against it: a service killed mid-scan leaves the client with exit 4
/// and the fix, and a restarted service opens the device again (nothing stays claimed).
@Suite(.timed, .serialized, .timeLimit(.minutes(5)))
struct VirtualDeviceServiceTests {
    static let passcode = "plum tree 42"
    let directory: String
    let device: VirtualDeviceSocket
    let finger = VirtualDeviceSocket.scanID(finger: 7)

    init() throws {
        directory = try TemporaryDirectory.make(in: "/tmp")
        device = VirtualDeviceSocket(path: directory + "/vd", timeout: .seconds(30))
    }

    var socket: String { directory + "/socket" }

    func startService() async throws -> DaemonProcess {
        try await DaemonProcess(
            socket: socket, stateDirectory: directory + "/state", extraArguments: ["--reader", "virtual_device"],
            environment: ["FP_VIRTUAL_DEVICE": device.path, "FP_DRIVERS_WHITELIST": "virtual_device"])
    }

    /// `fingerlock ARGS` (as root, which may talk to a service of its own) started with `stdin`.
    func start(_ arguments: [String], stdin: String = "") throws -> (Process, String) {
        let id = UUID().uuidString
        let input = directory + "/in-\(id)"
        let output = directory + "/out-\(id)"
        try stdin.write(toFile: input, atomically: false, encoding: .utf8)
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: SystemModeRealUsersTests.cliBinaryPath)
        process.arguments = ["--data-dir", directory + "/data", "--socket", socket] + arguments
        process.standardInput = FileHandle(forReadingAtPath: input)
        process.standardOutput = FileHandle(forWritingAtPath: output)
        process.standardError = process.standardOutput
        process.environment = ["PATH": "/usr/bin:/bin", "HOME": directory, "LANG": "C.UTF-8"]
        try process.run()
        // The child has its own copies: the Process would keep these open past its end.
        try? (process.standardInput as? FileHandle)?.close()
        try? (process.standardOutput as? FileHandle)?.close()
        return (process, output)
    }

    /// Waits (off the cooperative pool) for a started command; its status and output, and when it
    /// was seen to end: read where it is seen, because getting back onto this test process's pool
    /// can take seconds when other tests hold it (seen in CI: 4.7 s, for a client that had ended).
    func finish(_ started: (Process, String)) async throws -> (status: Int32, output: String, ended: ContinuousClock.Instant) {
        let (process, output) = started
        let ended = try await offPool {
            let deadline = Date().addingTimeInterval(90)
            while process.isRunning && Date() < deadline { usleep(10_000) }
            if process.isRunning {
                process.terminate()
                while process.isRunning { usleep(10_000) }
            }
            return ContinuousClock.now
        }
        return (process.terminationStatus, (try? String(contentsOfFile: output, encoding: .utf8)) ?? "", ended)
    }

    func run(_ arguments: [String], stdin: String = "") async throws -> (status: Int32, output: String) {
        let finished = try await finish(try start(arguments, stdin: stdin))
        return (finished.status, finished.output)
    }

    @Test func killingTheServiceMidScanExitsFourAndARestartedServiceOpensTheDeviceAgain() async throws {
        var service = try await startService()
        defer { service.terminateBlocking() }
        let proof = "\(Self.passcode)\n"
        let set = try await run(["passcode", "set", "--passcode-stdin", "--reader", "virtual_device"], stdin: proof + proof)
        try #require(set.status == 0, "\(set.output)")
        let enabled = try await run(["system", "enable", "--passcode-stdin"], stdin: proof)
        try #require(enabled.status == 0, "\(enabled.output)")
        let enrolling = try start(["enroll", "right-index", "--passcode-stdin"], stdin: proof)
        for _ in 0..<5 { try await device.queue(.scan(finger)) }
        let enrolled = try await finish(enrolling)
        try #require(enrolled.status == 0, "\(enrolled.output) \(service.log)")
        #expect(try await run(["unlock", "--passcode-stdin"], stdin: proof).status == 0)

        // A touch under way (the device is open: it takes commands), then the service is killed.
        let verifying = try start(["verify"])
        try await device.send(.sleep(milliseconds: 0))
        await service.kill9()
        let down = try await finish(verifying)
        #expect(down.status == 4, "\(down.output)")
        #expect(down.output.contains(ServiceStartHint.here), "\(down.output)")

        // Restarted: no key held (the passcode first), and the device opens again for a touch.
        service = try await startService()
        #expect(try await run(["unlock", "--passcode-stdin"], stdin: proof).status == 0)
        let again = try start(["verify"])
        try await device.queue(.scan(finger))
        let matched = try await finish(again)
        #expect(matched.status == 0 && matched.output.contains("right-index-finger"), "\(matched.output) \(service.log)")

        // Ctrl-C in the client mid-scan: the client ends at once, the service cancels the scan,
        // and the next touch gets the device.
        let interrupted = try start(["verify"])
        try await device.send(.sleep(milliseconds: 0))
        let sent = ContinuousClock.now
        kill(interrupted.0.processIdentifier, SIGINT)
        let clientLatency = try await finish(interrupted).ended - sent
        let next = try start(["verify"])
        try await device.queue(.scan(finger))
        let afterInterrupt = try await finish(next)
        let deviceFree = afterInterrupt.ended - sent
        #expect(afterInterrupt.status == 0, "\(afterInterrupt.output) \(service.log)")
        #expect(clientLatency < .seconds(1), "the client took \(clientLatency) to end after SIGINT")
        let log = service.stderrPath
        let cancelled = try await offPool {
            waitUntil { ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("call cancelled") }
        }
        #expect(cancelled, "\(service.log)")
        #expect(deviceFree < .seconds(5), "the next verify matched \(deviceFree) after the SIGINT")
    }
}
