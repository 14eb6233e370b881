import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

/// `config set` durations (in process): refused before any passcode is asked, on one
/// line, and never a crash.
@Suite(.timed, .timeLimit(.minutes(3))) struct DurationConfigTests {
    let runner = InProcessCLI(extraEnvironment: ["FINGERLOCK_READER": "simulated"])

    @Test(arguments: [
        ("2562047788015216h", "too long"), ("1h1h", "at most once each, in that order"), ("30m1h", "in that order"),
        ("45", "add a unit: 45s, 30m or 8h"),
    ])
    func badDurationsAreUsageErrorsOnOneLine(value: String, explanation: String) async throws {
        // No vault and no passcode source: a refusal must come from the check alone.
        let result = try await runner.run(["config", "set", "cache-expiry", value])
        #expect(result.status == 64)
        #expect(result.stderr.contains(explanation), "\(result.stderr)")
        #expect(result.stderr.hasPrefix("fingerlock: "))
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr.debugDescription)")
        #expect(result.stdout.isEmpty)
    }

    @Test func aGoodDurationIsStoredAndReadBack() async throws {
        try await runner.setPasscode()
        let set = try await runner.run(["config", "set", "cache-expiry", "1h30m", "--passcode-stdin"], stdin: "\(InProcessCLI.passcode)\n")
        #expect(set.status == 0, "\(set.stderr)")
        let get = try await runner.run(["config", "get", "cache-expiry", "--passcode-stdin"], stdin: "\(InProcessCLI.passcode)\n")
        #expect(get.stdout == "1h30m\n")
    }
}
