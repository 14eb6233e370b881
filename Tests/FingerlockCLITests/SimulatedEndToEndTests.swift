import Foundation
import Testing

/// The built binary with `--reader simulated` and scripted touches, as a user's CI would run it.
@Suite(.timeLimit(.minutes(2))) struct SimulatedEndToEndTests {
    let runner = BinaryRunner(extraEnvironment: ["FINGERLOCK_READER": "simulated"])

    func touches(_ script: String) -> [String: String] { ["FINGERLOCK_SIMULATED_TOUCHES": script] }

    @Test func readersListsTheSimulatedReaderOnlyWhenAskedFor() throws {
        let json = try runner.run(["readers", "--json"])
        #expect(json.status == 0)
        let readers = try #require(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(readers.count == 1)
        #expect(readers.first?["id"] as? String == "simulated:0")
        #expect(readers.first?["deviceId"] as? String == "0")
        #expect(readers.first?["enrollStages"] as? Int == 5)
        #expect(readers.first?["features"] as? [String] == ["identify", "verify"])
        #expect(Set(readers.first?.keys.map { $0 } ?? []) == ["id", "name", "driver", "deviceId", "scanType", "enrollStages", "features"])

        let auto = try runner.run(["readers", "--json", "--reader", "auto"], environment: ["FP_DRIVERS_WHITELIST": "none"])
        #expect(auto.status == 0)
        #expect(!auto.stdout.contains("simulated"))

        let staged = try runner.run(["readers"], environment: ["FINGERLOCK_SIMULATED_STAGES": "3"])
        #expect(staged.stdout.contains("enroll stages: 3"))
    }

    @Test func enrollWithARetryThenVerifyMatchAndNoMatch() throws {
        let enroll = try runner.run(["enroll", "left-index-finger"], environment: touches("left-index-finger*2,right-thumb,retry:center,left-index-finger*3"))
        #expect(enroll.status == 0, "\(enroll.stderr)")
        #expect(enroll.stdout.contains("stage 1/5"))
        #expect(enroll.stdout.contains("stage 5/5"))
        #expect(enroll.stdout.contains("Center your finger"))
        #expect(enroll.stdout.contains("The scan did not work"))

        let fingers = try runner.run(["fingers", "--json"])
        let list = try #require(JSONSerialization.jsonObject(with: Data(fingers.stdout.utf8)) as? [[String: Any]])
        #expect(list.count == 1)
        #expect(list.first?["finger"] as? String == "left-index-finger")
        #expect(list.first?["reader"] as? String == "simulated:0")
        #expect((list.first?["enrolled"] as? String)?.hasSuffix("Z") == true)

        let match = try runner.run(["verify"], environment: touches("left-index-finger"))
        #expect(match.status == 0)
        #expect(match.stdout.contains("Match: left-index-finger"))

        let named = try runner.run(["verify", "left-index-finger"], environment: touches("retry:short,left-index-finger"))
        #expect(named.status == 0)
        #expect(named.stdout.contains("too short"))

        let noMatch = try runner.run(["verify"], environment: touches("right-index-finger"))
        #expect(noMatch.status == 1)
        #expect(noMatch.stderr == "fingerlock: No match.\n")

        let unknown = try runner.run(["verify"], environment: touches("unknown"))
        #expect(unknown.status == 1)
    }

    @Test(arguments: [
        ("unplug", Int32(4), "unplugged"),
        ("busy", 4, "busy"),
        ("error", 4, "device error"),
        ("timeout", 1, "No finger was detected"),
        ("", 1, "No finger was detected"),
        ("absent", 4, "absent"),
    ])
    func verifyFailuresHaveTheirExitCodes(script: String, status: Int32, message: String) throws {
        let enroll = try runner.run(["enroll", "right-thumb"], environment: touches("right-thumb*5"))
        #expect(enroll.status == 0)
        let result = try runner.run(["verify"], environment: touches(script))
        #expect(result.status == status)
        #expect(result.stderr.contains(message))
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    @Test func aFailureMidEnrollSavesNothing() throws {
        let unplugged = try runner.run(["enroll"], environment: touches("right-index-finger*2,unplug"))
        #expect(unplugged.status == 4)
        #expect(unplugged.stderr.contains("Nothing was saved"))
        let fingers = try runner.run(["fingers", "--json"])
        #expect(fingers.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "[\n\n]" || fingers.stdout.contains("[]"))
    }

    @Test func verifyWithNothingEnrolledOrAnUnknownFinger() throws {
        let nothing = try runner.run(["verify"], environment: touches("right-thumb"))
        #expect(nothing.status == 7)
        _ = try runner.run(["enroll", "right-thumb"], environment: touches("right-thumb*5"))
        let other = try runner.run(["verify", "left-thumb"], environment: touches("left-thumb"))
        #expect(other.status == 5)
    }

    @Test func forgetOneOrAll() throws {
        _ = try runner.run(["enroll", "right-thumb"], environment: touches("right-thumb*5"))
        _ = try runner.run(["enroll", "left-thumb"], environment: touches("left-thumb*5"))
        let missing = try runner.run(["forget", "right-little-finger"])
        #expect(missing.status == 5)
        let one = try runner.run(["forget", "right-thumb"])
        #expect(one.status == 0)
        #expect(try runner.run(["verify", "right-thumb"], environment: touches("right-thumb")).status == 5)
        #expect(try runner.run(["verify"], environment: touches("left-thumb")).status == 0)
        let all = try runner.run(["forget", "--all"])
        #expect(all.status == 0)
        #expect(try runner.run(["verify"], environment: touches("left-thumb")).status == 7)
    }

    @Test func usageErrorsAreOneLineWithStatus64() throws {
        for arguments in [["enroll", "nose"], ["forget"], ["verify", "--bogus"], ["readers", "--reader", "a:"]] {
            let result = try runner.run(arguments)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(arguments): \(result.stderr)")
        }
        let badScript = try runner.run(["verify"], environment: touches("left-thumb,wiggle"))
        #expect(badScript.status == 64)
        #expect(badScript.stderr.contains("'wiggle'"))
    }

    @Test func jsonErrorsAreObjects() throws {
        let result = try runner.run(["readers", "--json"], environment: touches("bogus"))
        #expect(result.status == 64)
        let object = try #require(JSONSerialization.jsonObject(with: Data(result.stderr.utf8)) as? [String: String])
        #expect(object["error"] == "usage")
        #expect(object["message"]?.contains("bogus") == true)
    }

    @Test func globalOptionsWorkBeforeOrAfterTheCommandAndTheFlagWins() throws {
        let elsewhere = runner.dataDirectory + "-other"
        let enroll = try runner.run(["--data-dir", elsewhere, "enroll", "right-thumb"], environment: touches("right-thumb*5"))
        #expect(enroll.status == 0)
        #expect(FileManager.default.fileExists(atPath: elsewhere + "/prints/simulated/0/right-thumb"))
        #expect(!FileManager.default.fileExists(atPath: runner.dataDirectory + "/prints"))
        let verify = try runner.run(["verify", "--data-dir=\(elsewhere)", "--reader", "simulated"], environment: touches("right-thumb"))
        #expect(verify.status == 0)
    }

    @Test func aDataDirectoryOthersCanReadIsRefused() throws {
        _ = try runner.run(["enroll", "right-thumb"], environment: touches("right-thumb*5"))
        chmod(runner.dataDirectory + "/prints", 0o755)
        let result = try runner.run(["fingers"])
        #expect(result.status == 6)
        #expect(result.stderr.contains("chmod 700"))
    }
}
