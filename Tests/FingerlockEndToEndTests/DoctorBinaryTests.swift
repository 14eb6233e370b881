import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

/// `doctor` through the binary on a working test vault: the reader in use is the simulated one,
/// so no hardware reader is missing and nothing is an error.
@Suite(.timed, .timeLimit(.minutes(2))) struct DoctorBinaryTests {
    let runner = BinaryRunner(extraEnvironment: ["FINGERLOCK_READER": "simulated"])

    @Test func aWorkingSimulatedVaultHasNoError() async throws {
        try await runner.setPasscode()
        #expect(try await runner.enroll("right-thumb", touches: "right-thumb*5").status == 0)
        let result = try await runner.run(["doctor", "--json"])
        #expect(result.status == 0, "\(result.stdout)")
        let findings = try #require(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        #expect(findings.filter { $0["status"] as? String == "error" }.isEmpty, "\(findings)")
        let readers = try #require(findings.first { $0["check"] as? String == "readers" })
        #expect(readers["status"] as? String == "ok")
        #expect((readers["message"] as? String)?.contains("simulated:0") == true)
    }

    @Test func theSimulatedReaderAbsentIsStillAnError() async throws {
        let result = try await runner.run(["doctor", "--json"], environment: ["FINGERLOCK_SIMULATED_TOUCHES": "absent"])
        #expect(result.status == 1)
        let findings = try #require(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        let readers = try #require(findings.first { $0["check"] as? String == "readers" })
        #expect(readers["status"] as? String == "error")
    }
}
