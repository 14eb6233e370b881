import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

@testable import FingerlockCLI

/// `fingerlock status [--json]` in process: no touch, no passcode, no secret.
@Suite(.timed, .timeLimit(.minutes(3))) struct StatusTests {
    let runner = InProcessCLI(extraEnvironment: ["FINGERLOCK_READER": "simulated"])
    static let keys: Set<String> = [
        "setUp", "unlocked", "keyExpiresInSeconds", "reuseWindowSecondsLeft", "failedTouches", "lockedOut",
        "failedPasscodes", "passcodeDelaySecondsLeft", "fingers", "kind", "mode", "keyCacheUnavailable",
        "version", "service", "tpm",
    ]

    /// `status --json`, checked for its shape; a touch script that would fail if status scanned.
    func statusJSON() async throws -> [String: Any] {
        let result = try await runner.run(["status", "--json"], environment: ["FINGERLOCK_SIMULATED_TOUCHES": "unknown"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty)
        let object = try #require(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(Set(object.keys) == Self.keys)
        #expect(object["mode"] as? String == "user")
        #expect(object["service"] is NSNull)
        #expect(object["version"] as? String == FingerlockVersion.current)
        return object
    }

    func text() async throws -> String {
        let result = try await runner.run(["status"])
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout
    }

    @Test func beforeAnyPasscodeItSaysHowToSetUp() async throws {
        let status = try await statusJSON()
        #expect(status["setUp"] as? Bool == false)
        #expect(status["unlocked"] as? Bool == false)
        #expect(status["fingers"] is NSNull)
        #expect(status["kind"] is NSNull)
        #expect(try await text() == "vault: not set up; `fingerlock passcode set` creates it\nmode: user\n")
    }

    @Test func unlockedShowsTimeLeftKindAndFingersLockedHidesThem() async throws {
        try await runner.setPasscode()
        #expect(try await runner.enroll("right-thumb", touches: "right-thumb*5").status == 0)
        var status = try await statusJSON()
        #expect(status["setUp"] as? Bool == true)
        #expect(status["unlocked"] as? Bool == true)
        // The default cache expiry is 8 h; the kernel rounds to its unit.
        let left = try #require(status["keyExpiresInSeconds"] as? Int)
        #expect((7 * 3600...8 * 3600).contains(left))
        #expect(status["kind"] as? String == "test")
        #expect(status["fingers"] as? [[String: String]] == [["reader": "simulated:0", "finger": "right-thumb"]])
        #expect(status["reuseWindowSecondsLeft"] is NSNull)
        // Status scanned nothing: the unknown finger its environment offered was never touched.
        #expect(status["failedTouches"] as? Int == 0)
        var shown = try await text()
        #expect(shown.contains("state: unlocked for about "))
        #expect(shown.contains("fingers on simulated:0: right-thumb\n"))
        #expect(shown.contains("(a test vault: simulated and virtual readers only)"))

        #expect(try await runner.run(["lock"]).status == 0)
        status = try await statusJSON()
        #expect(status["setUp"] as? Bool == true)
        #expect(status["unlocked"] as? Bool == false)
        #expect(status["keyExpiresInSeconds"] is NSNull)
        #expect(status["fingers"] is NSNull)
        #expect(status["kind"] is NSNull)
        shown = try await text()
        #expect(shown.contains("state: locked: the passcode is needed before a touch unlocks\n"))
        #expect(shown.contains("fingers: sealed in the vault while it is locked\n"))
        #expect(!shown.contains("right-thumb"))
    }

    @Test func failedTouchesLockoutAndTheReuseWindow() async throws {
        try await runner.setPasscode()
        #expect(try await runner.enroll("right-thumb", touches: "right-thumb*5").status == 0)
        let passcode = "\(InProcessCLI.passcode)\n"
        #expect(try await runner.run(["config", "set", "reuse-window", "5m", "--passcode-stdin"], stdin: passcode).status == 0)
        #expect(try await runner.run(["unlock", "--passcode-stdin"], stdin: passcode).status == 0)
        var status = try await statusJSON()
        let window = try #require(status["reuseWindowSecondsLeft"] as? Int)
        #expect((1...300).contains(window))
        #expect(try await text().contains("reuse window: "))
        // The window a passcode unlock started lets the next command in without a touch: every
        // scan would time out here (an empty touch script).
        let inWindow = try await runner.run(["notes", "list"], environment: ["FINGERLOCK_SIMULATED_TOUCHES": ""])
        #expect(inWindow.status == 0, "\(inWindow.stderr)")
        #expect(try await runner.run(["lock"]).status == 0)
        let afterLock = try await runner.run(["notes", "list"], environment: ["FINGERLOCK_SIMULATED_TOUCHES": ""])
        #expect(afterLock.status != 0)
        #expect(try await runner.run(["unlock", "--passcode-stdin"], stdin: passcode).status == 0)

        for _ in 0..<5 {
            _ = try await runner.run(["verify"], environment: ["FINGERLOCK_SIMULATED_TOUCHES": "unknown*3"])
        }
        status = try await statusJSON()
        #expect(status["lockedOut"] as? Bool == true)
        #expect((status["failedTouches"] as? Int ?? 0) >= 5)
        #expect(try await text().contains("fingerprint: locked out after "))
    }

    @Test func passcodeDelayAfterFiveWrongPasscodes() async throws {
        try await runner.setPasscode()
        #expect(try await runner.run(["lock"]).status == 0)
        for _ in 0..<5 {
            let wrong = try await runner.run(["unlock", "--passcode-stdin"], stdin: "not it\n")
            #expect(wrong.status == 1, "\(wrong.stderr)")
        }
        let status = try await statusJSON()
        #expect(status["failedPasscodes"] as? Int == 5)
        let delay = try #require(status["passcodeDelaySecondsLeft"] as? Int)
        #expect((1...60).contains(delay))
        #expect(status["unlocked"] as? Bool == false)
        #expect(try await text().contains("passcode: 5 wrong in a row; next attempt in "))
    }
}
