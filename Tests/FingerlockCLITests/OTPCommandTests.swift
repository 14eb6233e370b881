import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

/// `otp NOTE`, in process: the code of the note's otpauth:// line (the RFCs' vectors, at a set
/// clock), HOTP's counter advancing in the note, and the errors, none of which shows the secret.
@Suite(.timed, .timeLimit(.minutes(3))) struct OTPCommandTests {
    let runner = InProcessCLI(extraEnvironment: ["FINGERLOCK_READER": "simulated"])
    let touch = ["FINGERLOCK_SIMULATED_TOUCHES": "right-thumb*4"]
    /// RFC 6238's SHA1 seed, "12345678901234567890", in base32.
    static let secret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"

    init() async throws {
        try await runner.setPasscode()
        #expect(try await runner.enroll("right-thumb", touches: "right-thumb*5").status == 0)
    }

    func add(_ body: String, title: String) async throws {
        let result = try await runner.run(["notes", "add", "--title", title], environment: touch, stdin: body)
        #expect(result.status == 0, "\(result.stderr)")
    }

    func modified(_ title: String) async throws -> String? {
        let shown = try await runner.run(["notes", "show", title, "--json"], environment: touch)
        return (try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])?["modified"] as? String
    }

    func body(of title: String) async throws -> String {
        try await runner.run(["notes", "show", title, "--body"], environment: touch).stdout
    }

    @Test func aTOTPCodeIsTheRFCsAtTheClocksTime() async throws {
        try await add("hunter2\nuser: alice\notpauth://totp/Example:alice?secret=\(Self.secret)&digits=8&issuer=Example\n", title: "example")
        let before = try await modified("example")
        let at59 = try await runner.run(["otp", "example"], environment: touch, now: Date(timeIntervalSince1970: 59))
        #expect(at59.status == 0, "\(at59.stderr)")
        #expect(at59.stdout == "94287082\n")
        let later = try await runner.run(
            ["otp", "example", "--json"], environment: touch, now: Date(timeIntervalSince1970: 1_111_111_109))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(later.stdout.utf8)) as? [String: Any])
        #expect(json["code"] as? String == "07081804")
        #expect(json["type"] as? String == "totp" && json["digits"] as? Int == 8)
        #expect(json["secondsLeft"] as? Int == 30 - 1_111_111_109 % 30)
        for output in [at59.stdout + at59.stderr, later.stdout + later.stderr] { #expect(!output.contains(Self.secret)) }
        // Reading a TOTP code changes nothing in the note.
        #expect(try await modified("example") == before)
    }

    @Test func anHOTPCodeAdvancesItsCounterInTheNoteSoNoCodeComesTwice() async throws {
        try await add("otpauth://hotp/Bank?secret=\(Self.secret)&counter=0\n", title: "bank")
        var codes: [String] = []
        for _ in 0..<3 {
            let result = try await runner.run(["otp", "bank"], environment: touch)
            #expect(result.status == 0, "\(result.stderr)")
            codes.append(result.stdout.trimmingCharacters(in: .newlines))
        }
        // RFC 4226's codes for counters 0, 1 and 2.
        #expect(codes == ["755224", "287082", "359152"])
        #expect(try await body(of: "bank") == "otpauth://hotp/Bank?secret=\(Self.secret)&counter=3\n")
    }

    @Test func aNoteWithoutAUsableLineSaysWhyWithoutTheSecret() async throws {
        try await add("just a password\n", title: "plain")
        let none = try await runner.run(["otp", "plain"], environment: touch)
        #expect(none.status == 5)
        #expect(none.stderr.contains("\"plain\" has no otpauth:// line"), "\(none.stderr)")
        try await add("otpauth://totp/x?secret=\(Self.secret)&algorithm=MD5\n", title: "broken")
        let broken = try await runner.run(["otp", "broken"], environment: touch)
        #expect(broken.status == 6)
        #expect(broken.stderr.contains("cannot be used: its algorithm \"MD5\" is none of SHA1, SHA256, SHA512"), "\(broken.stderr)")
        #expect(!broken.stderr.contains(Self.secret))
        let usage = try await runner.run(["otp", "broken", "--clip", "--json"], environment: touch)
        #expect(usage.status == 64)
    }
}
