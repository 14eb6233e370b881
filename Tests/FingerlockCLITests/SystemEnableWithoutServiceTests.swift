import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

/// `system enable` with no fingerlockd to answer: refused before the passcode is asked, in words
/// that fit a vault still in user mode.
@Suite(.timed, .timeLimit(.minutes(2))) struct SystemEnableWithoutServiceTests {
    let runner = InProcessCLI(extraEnvironment: ["FINGERLOCK_READER": "simulated"])

    @Test func noServiceIsSaidBeforeThePasscode() async throws {
        try await runner.setPasscode()
        let socket = runner.home + "/no-service/socket"
        // An empty passcode source: asking for the passcode first would fail with exit 8 instead.
        let result = try await runner.run(["system", "enable", "--passcode-stdin", "--socket", socket])
        #expect(result.status == 4, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("fingerlock: fingerlockd is not reachable at \(socket) (no socket there)"), "\(result.stderr)")
        #expect(result.stderr.hasSuffix("Nothing was changed: this vault stays in user mode, where the passcode opens it.\n"))
        #expect(!result.stderr.contains("recovery key"))
        let mode = try await runner.run(["system", "status", "--socket", socket])
        #expect(mode.stdout == "mode: user\n")
        #expect(result.stderr.contains("systemctl enable --now fingerlockd.socket"))
    }

    @Test func withoutSystemdTheGuideForItIsNamed() async throws {
        let runner = InProcessCLI(extraEnvironment: ["FINGERLOCK_READER": "simulated"], systemd: false)
        try await runner.setPasscode()
        let socket = runner.home + "/no-service/socket"
        let result = try await runner.run(["system", "enable", "--passcode-stdin", "--socket", socket])
        #expect(result.status == 4, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "this machine runs without systemd: start it as /usr/share/doc/fingerlock/system-mode-without-systemd.md says"),
            "\(result.stderr)")
        #expect(!result.stderr.contains("systemctl"))
    }
}
