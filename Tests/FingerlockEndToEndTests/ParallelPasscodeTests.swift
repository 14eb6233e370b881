import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Passcode attempts made at once (issue 27): one still being checked is no wrong passcode for the
/// runs beside it, and one killed before its result is a wrong one, as it always was.
@Suite(.timed, .timeLimit(.minutes(3))) struct ParallelPasscodeTests {
    let runner = BinaryRunner()

    /// A file holding `passcode`, for `--passcode-fd 3`.
    func passcodeFile(_ passcode: String) throws -> String {
        let file = runner.home + "/passcode-\(UUID().uuidString)"
        try "\(passcode)\n".write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    func failedPasscodes() async throws -> Int? {
        let status = try await runner.run(["status", "--json"])
        let json = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
        return json?["failedPasscodes"] as? Int
    }

    /// Seven started together: when the sixth and seventh are checked, five are in flight, which the
    /// count takes for five wrong passcodes (a 1 min delay). They wait for those results instead of
    /// being refused (before: two of the seven exited 3, "Too many wrong passcodes (5)").
    @Test func sevenRunsStartedTogetherWithTheRightPasscodeAllSucceed() async throws {
        try await runner.setPasscodeThroughTheBinary()
        #expect(try await runner.run(["lock"]).status == 0)
        let file = try passcodeFile(BinaryRunner.passcode)
        let runner = runner
        let results = try await withThrowingTaskGroup(of: BinaryRunner.Result.self) { group in
            for _ in 1...7 {
                group.addTask { try await runner.run(["notes", "list", "--passcode-fd", "3"], descriptorsFromFiles: [3: file]) }
            }
            return try await group.reduce(into: [BinaryRunner.Result]()) { $0.append($1) }
        }
        #expect(results.count == 7)
        for result in results {
            #expect(result.status == 0, "\(result.stderr)")
        }
        #expect(try await failedPasscodes() == 0)
    }

    /// A run waiting for another's result learns it from the kernel when that one is killed: the
    /// killed attempt is a wrong passcode (the fifth, so a delay), never one still in flight.
    @Test func aRunKilledWhileAnotherWaitsForItsResultCountsAsAWrongPasscode() async throws {
        try await runner.setPasscodeThroughTheBinary()
        for attempt in 1...4 {
            #expect(try await runner.run(["unlock", "--passcode-stdin"], stdin: "wrong \(attempt)\n").status == 1)
        }
        let killed = try runner.start(["unlock", "--passcode-stdin"], stdin: "wrong 5\n")
        defer { if killed.isRunning { kill(killed.processIdentifier, SIGKILL) } }
        // Counted before its scrypt starts, which takes most of a second.
        let counted = ContinuousClock.now.advanced(by: .seconds(20))
        let record = runner.dataDirectory + "/attempts"
        while (try? String(contentsOfFile: record, encoding: .utf8))?.contains("passcodes=5 ") != true {
            guard ContinuousClock.now < counted else {
                Issue.record("the fifth attempt was never counted")
                return
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        let runner = runner
        let waiting = Task { try await runner.run(["unlock", "--passcode-stdin"], stdin: "\(BinaryRunner.passcode)\n") }
        try await Task.sleep(for: .milliseconds(300))
        kill(killed.processIdentifier, SIGKILL)
        killed.waitUntilExit()
        let result = try await waiting.value
        #expect(result.status == 3, "\(result.stderr)")
        #expect(result.stderr.contains("Too many wrong passcodes (5): try again in"), "\(result.stderr)")
        #expect(try await failedPasscodes() == 5)
    }
}
