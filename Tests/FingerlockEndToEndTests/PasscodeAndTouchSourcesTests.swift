import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

/// Where a command may take its passcode and its touch from, through the binary: never the reader
/// over SSH, never the note body's stdin or a descriptor that is not the caller's; an absent simulated
/// reader still makes a test vault; and without a terminal, failed touches end in an error (on stderr,
/// as a JSON object with `--json`) and then a lockout, never a passcode prompt.
@Suite(.timed, .timeLimit(.minutes(3))) struct PasscodeAndTouchSourcesTests {
    let runner = BinaryRunner(extraEnvironment: ["FINGERLOCK_READER": "simulated", "TERM": "dumb"])
    func touches(_ script: String) -> [String: String] { ["FINGERLOCK_SIMULATED_TOUCHES": script] }

    @Test func verifyOverSSHDoesNotUseTheReader() async throws {
        try await runner.setPasscode()
        _ = try await runner.enroll("right-thumb", touches: "right-thumb*5")
        let result = try await runner.run(
            ["verify"], environment: touches("right-thumb").merging(["SSH_CONNECTION": "192.0.2.1 5 192.0.2.2 22"]) { $1 })
        #expect(result.status == 4)
        #expect(result.stderr.contains("remote (SSH) session"))
    }

    @Test func thePasscodeCannotComeFromTheBodysStdinOrAClosedDescriptor() async throws {
        try await runner.setPasscode()
        let shared = try await runner.run(["notes", "add", "--passcode-fd", "0"], stdin: "my secret note line\n")
        #expect(shared.status == 64)
        // Closed for certain (by bash: dash takes one-digit descriptors only): the test process may
        // hold a descriptor 99 a child could inherit.
        let closed = try await runner.run(
            ["unlock", "--passcode-fd", "99"], launcher: ["/bin/bash", "-c", "exec 99<&-; exec \"$0\" \"$@\""])
        #expect(closed.status == 64)
        #expect(closed.stderr.contains("not open"))
        // 3 to 5 are the runtime's own by the time the options are read (libdispatch's epoll,
        // eventfd and timerfd): never the caller's passcode.
        for fd in ["3", "4", "5"] {
            let own = try await runner.run(["unlock", "--passcode-fd", fd])
            #expect(own.status == 64, "fd \(fd): \(own.stderr)")
            #expect(own.stderr.contains("--passcode-fd \(fd): that descriptor is not open."))
        }
        let attempts = (try? String(contentsOfFile: runner.dataDirectory + "/attempts", encoding: .utf8)) ?? ""
        #expect(!attempts.contains("passcodes=1 "))
    }

    @Test func anAbsentSimulatedReaderStillMakesATestVault() async throws {
        let set = try await runner.run(
            ["passcode", "set", "--passcode-stdin"], environment: touches("absent"),
            stdin: "\(BinaryRunner.passcode)\n\(BinaryRunner.passcode)\n")
        #expect(set.stdout.contains("a test vault"))
        #expect(try await runner.enroll("right-thumb", touches: "right-thumb*5").status == 0)
    }

    @Test func theFifthFailedTouchWithoutATerminalIsANoMatch() async throws {
        try await runner.setPasscode()
        _ = try await runner.enroll("right-thumb", touches: "right-thumb*5")
        _ = try await runner.run(["notes", "trash"], environment: touches("unknown*3"))
        let fifth = try await runner.run(["notes", "trash"], environment: touches("unknown*3"))
        #expect(fifth.status == 1)
        #expect(fifth.stderr.contains("fingerprint unlock is off"))
        let locked = try await runner.run(["notes", "trash"], environment: touches("right-thumb"))
        #expect(locked.status == 8)
    }

    @Test func jsonKeepsStderrToTheErrorObject() async throws {
        try await runner.setPasscode()
        _ = try await runner.enroll("right-thumb", touches: "right-thumb*5")
        let result = try await runner.run(["notes", "trash", "--json"], environment: touches("unknown*3"))
        #expect(result.status == 1)
        let object = try #require(JSONSerialization.jsonObject(with: Data(result.stderr.utf8)) as? [String: String])
        #expect(object["error"] == "auth_failed")
    }
}
