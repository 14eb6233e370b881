import FingerlockCLITestSupport
import FingerlockTestSupport
import FingerprintTestSupport
import Foundation
import Testing

/// The built binary against libfprint's own `virtual_device` driver: real libfprint code paths, the
/// socket standing in for the finger.
@Suite(.timed, .timeLimit(.minutes(3))) struct VirtualDeviceEndToEndTests {
    let runner: BinaryRunner
    let device: VirtualDeviceSocket
    let finger = VirtualDeviceSocket.scanID(finger: 7)
    let otherFinger = VirtualDeviceSocket.scanID(finger: 2)

    init() async throws {
        let directory = "/tmp/fl-vd-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        device = VirtualDeviceSocket(path: directory + "/sock", timeout: .seconds(30))
        runner = BinaryRunner(extraEnvironment: [
            "FP_VIRTUAL_DEVICE": device.path, "FP_DRIVERS_WHITELIST": "virtual_device", "TERM": "dumb",
        ])
        try await runner.setPasscode()
    }

    /// Runs the command while touching the reader as `touches` says, each once the scan is waiting.
    func run(_ arguments: [String], touches: [VirtualDeviceCommand], stdin: String = "") async throws -> BinaryRunner.Result {
        async let result = runner.run(arguments, stdin: stdin)
        for touch in touches { try await device.queue(touch) }
        return try await result
    }

    func enroll() async throws -> BinaryRunner.Result {
        try await run(
            ["enroll", "right-index-finger", "--passcode-stdin"],
            touches: [.scan(finger), .scan(finger), .retry(2), .scan(finger), .scan(finger), .scan(finger)],
            stdin: "\(BinaryRunner.passcode)\n")
    }

    @Test func readersEnrollVerifyAndForget() async throws {
        let readers = try await runner.run(["readers", "--json"])
        let list = try #require(JSONSerialization.jsonObject(with: Data(readers.stdout.utf8)) as? [[String: Any]])
        #expect(list.map { $0["id"] as? String } == ["virtual_device:0"])
        #expect(list.first?["features"] as? [String] == ["verify"])

        let enrolled = try await enroll()
        #expect(enrolled.status == 0, "\(enrolled.stderr)")
        #expect(enrolled.stdout.contains("stage 5/5"))
        #expect(enrolled.stdout.contains("Center your finger"))
        let fingers = try await runner.run(["fingers", "--json"])
        #expect(fingers.stdout.contains("virtual_device:0"))

        let match = try await run(["verify"], touches: [.scan(finger)])
        #expect(match.status == 0, "\(match.stderr)")
        #expect(match.stdout.contains("Match: right-index-finger"))
        let noMatch = try await run(["verify"], touches: [.scan(otherFinger)])
        #expect(noMatch.status == 1)
        #expect(noMatch.stderr == "fingerlock: No match.\n")

        let forget = try await runner.run(["forget", "right-index-finger", "--passcode-stdin"], stdin: "\(BinaryRunner.passcode)\n")
        #expect(forget.status == 0)
        #expect(try await runner.run(["verify"]).status == 7)
    }

    @Test func unplugAndDeviceErrorsMidVerify() async throws {
        #expect(try await enroll().status == 0)
        async let unplugged = runner.run(["verify"])
        try await device.send(.sleep(milliseconds: 0))
        try await device.send(.unplug)
        let result = try await unplugged
        #expect(result.status == 4)
        #expect(result.stderr.contains("unplugged"))
        let error = try await run(["verify"], touches: [.error(4)])
        #expect(error.status == 4)
        #expect(error.stderr.contains("busy") || error.stderr.contains("another program"))
    }

    @Test func aTouchUnlocksNotesAndEnterDuringTheScanSwitchesToThePasscode() async throws {
        #expect(try await enroll().status == 0)
        let added = try await run(["notes", "add", "--title", "vd note"], touches: [.scan(finger)], stdin: "body\n")
        #expect(added.status == 0, "\(added.stderr)")

        let session = try PseudoTerminalSession(arguments: ["grep", "body"], environment: runner.environment)
        await session.expect("Swipe your finger on the fingerprint reader (or press Enter to type your passcode)")
        // The reader is waiting; Enter cancels the scan and asks for the passcode, without echo.
        session.send("\r")
        await session.expect("Passcode (open your notes): ")
        session.send("\(BinaryRunner.passcode)\r")
        #expect(await session.waitForExit() == 0)
        #expect(session.output.contains("vd note"))
        #expect(!session.output.contains(BinaryRunner.passcode))
    }

    @Test func typingDuringTheScanStartsThePasscode() async throws {
        #expect(try await enroll().status == 0)
        let session = try PseudoTerminalSession(arguments: ["notes", "trash"], environment: runner.environment)
        await session.expect("(or press Enter to type your passcode)")
        session.send("plum")
        await session.expect("Passcode (open your notes): ")
        session.send(" tree 42\r")
        #expect(await session.waitForExit() == 0)
        #expect(!session.output.contains("plum"))
        #expect(!session.output.contains("tree 42"))
    }

    @Test func ctrlCDuringTheScanSwitchesToThePasscodeAndAtThePromptCancels() async throws {
        #expect(try await enroll().status == 0)
        let session = try PseudoTerminalSession(arguments: ["notes", "trash"], environment: runner.environment)
        await session.expect("(or press Enter to type your passcode)")
        session.send("\u{03}")
        await session.expect("Ctrl-C: the scan stopped; type the passcode, or press Ctrl-C again to quit.")
        await session.expect("Passcode (open your notes): ")
        session.send("\u{03}")
        #expect(await session.waitForExit() == 2)
        #expect(session.output.contains("Cancelled at the passcode prompt"))
    }
}

extension VirtualDeviceEndToEndTests {
    /// libfprint's and GLib's log never reaches the terminal raw: nothing by default, and with
    /// G_MESSAGES_DEBUG one `fingerlock: libfprint …` line each, never GLib's own `(process:PID)` form.
    @Test func libfprintsLogIsRoutedNotPrintedRaw() async throws {
        let quiet = try await runner.run(["readers"])
        #expect(quiet.status == 0, "\(quiet.stderr)")
        #expect(quiet.stderr.isEmpty, "\(quiet.stderr)")
        let verbose = try await runner.run(["readers"], environment: ["G_MESSAGES_DEBUG": "all"])
        #expect(verbose.status == 0, "\(verbose.stderr)")
        let lines = verbose.stderr.split(separator: "\n")
        #expect(!lines.isEmpty)
        #expect(lines.allSatisfy { $0.hasPrefix("fingerlock: libfprint ") }, "\(verbose.stderr)")
        #expect(!verbose.stderr.contains("(process:"))
    }
}
