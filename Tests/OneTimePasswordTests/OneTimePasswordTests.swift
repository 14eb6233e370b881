import Foundation
import Testing

@testable import OneTimePassword

/// The codes against the RFCs' own test vectors, and the URIs people paste.
@Suite(.timeLimit(.minutes(1))) struct OneTimePasswordTests {
    /// RFC 6238 appendix B: the seeds are ASCII digits, 20, 32 and 64 bytes long (base32 here).
    static let seeds: [OTPAuthURI.Algorithm: String] = [
        .sha1: "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ",
        .sha256: "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZA====",
        .sha512:
            "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNA=",
    ]

    /// (time, SHA1, SHA256, SHA512), 8 digits, 30-second steps.
    static let rfc6238: [(Double, String, String, String)] = [
        (59, "94287082", "46119246", "90693936"),
        (1_111_111_109, "07081804", "68084774", "25091201"),
        (1_111_111_111, "14050471", "67062674", "99943326"),
        (1_234_567_890, "89005924", "91819424", "93441116"),
        (2_000_000_000, "69279037", "90698825", "38618901"),
        (20_000_000_000, "65353130", "77737706", "47863826"),
    ]

    @Test(arguments: OTPAuthURI.Algorithm.allCases)
    func totpMatchesRFC6238(_ algorithm: OTPAuthURI.Algorithm) throws {
        let uri = try OTPAuthURI(
            parsing: "otpauth://totp/RFC:6238?secret=\(Self.seeds[algorithm]!)&algorithm=\(algorithm.rawValue)&digits=8&period=30")
        for (time, sha1, sha256, sha512) in Self.rfc6238 {
            let expected = [OTPAuthURI.Algorithm.sha1: sha1, .sha256: sha256, .sha512: sha512][algorithm]
            #expect(uri.code(at: Date(timeIntervalSince1970: time)) == expected, "\(algorithm) at \(time)")
        }
    }

    /// RFC 4226 appendix D: HOTP-SHA1, 6 digits, counters 0 to 9.
    @Test func hotpMatchesRFC4226() throws {
        let expected = ["755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583", "399871", "520489"]
        let uri = try OTPAuthURI(parsing: "otpauth://hotp/RFC:4226?secret=\(Self.seeds[.sha1]!)&counter=0")
        #expect((0..<10).map { uri.code(counter: UInt64($0)) } == expected)
        #expect(uri.kind == .hotp(counter: 0))
    }

    @Test func theDefaultsAreSHA1SixDigitsAndThirtySeconds() throws {
        let uri = try OTPAuthURI(parsing: "otpauth://totp/Example:alice@example.com?secret=\(Self.seeds[.sha1]!)&issuer=Example")
        #expect(uri.algorithm == .sha1 && uri.digits == 6 && uri.kind == .totp(period: 30))
        #expect(uri.issuer == "Example" && uri.label == "Example:alice@example.com")
        // The last six digits of the 8-digit vector at 59 s.
        #expect(uri.code(at: Date(timeIntervalSince1970: 59)) == "287082")
        #expect(uri.secondsLeft(at: Date(timeIntervalSince1970: 59)) == 1)
        #expect(uri.secondsLeft(at: Date(timeIntervalSince1970: 60)) == 30)
    }

    @Test func secretsAreReadAsPeopleWriteThem() throws {
        // RFC 4648's own vectors, then lower case, groups and no padding.
        #expect(Base32.decode("MZXW6YTBOI======").map { String(decoding: $0, as: UTF8.self) } == "foobar")
        #expect(Base32.decode("MZXW6===").map { String(decoding: $0, as: UTF8.self) } == "foo")
        #expect(Base32.decode("mzxw 6ytb-oi") == Base32.decode("MZXW6YTBOI"))
        #expect(Base32.decode("MZXW6YTBO1") == nil)  // 1 is not in the alphabet
        #expect(Base32.decode("MZX") == nil)  // no encoder ends on 3 characters
        #expect(Base32.decode("MZ=XW") == nil)  // padding in the middle
    }

    @Test(arguments: [
        ("https://example.com/?secret=GEZDGNBV", "it is not an otpauth:// URI"),
        ("otpauth://totp/x?issuer=y", "it has no secret"),
        ("otpauth://totp/x?secret=not*base32", "its secret is not base32"),
        ("otpauth://totp/x?secret=GEZDGNBV&algorithm=MD5", "its algorithm \"MD5\" is none of SHA1, SHA256, SHA512"),
        ("otpauth://totp/x?secret=GEZDGNBV&digits=4", "its digits \"4\" are not 6, 7 or 8"),
        ("otpauth://totp/x?secret=GEZDGNBV&period=0", "its period \"0\" is not a number of seconds from 1 to 3600"),
        ("otpauth://hotp/x?secret=GEZDGNBV", "an hotp URI needs a counter (a whole number)"),
        ("otpauth://motp/x?secret=GEZDGNBV", "its type \"motp\" is neither totp nor hotp"),
    ])
    func aURIThatCannotBeUsedSaysWhyWithoutItsSecret(_ text: String, _ reason: String) {
        #expect(throws: OTPError(reason)) { try OTPAuthURI(parsing: text) }
    }

    @Test func theFirstOTPLineOfABodyIsFoundAndAnHOTPCounterAdvancesInPlace() throws {
        let body = "hunter2\r\nuser: alice\r\n  otpauth://hotp/Bank?Counter=41&secret=GEZDGNBV&counter=7\r\notpauth://totp/Other?secret=AAAA\r\n"
        let line = try #require(try OTPLine.first(in: body))
        #expect(line.index == 2)
        #expect(line.uri.kind == .hotp(counter: 41))
        #expect(
            line.body(body, withCounter: 42)
                == "hunter2\r\nuser: alice\r\n  otpauth://hotp/Bank?Counter=42&secret=GEZDGNBV&counter=7\r\notpauth://totp/Other?secret=AAAA\r\n")
        #expect(try OTPLine.first(in: "no code here\n") == nil)
        #expect(throws: OTPError("its secret is not base32")) { try OTPLine.first(in: "otpauth://totp/x?secret=@@") }
    }
}
