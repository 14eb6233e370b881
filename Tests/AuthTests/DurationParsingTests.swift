import AuthCore
import FingerlockTestSupport
import Testing

@testable import Auth

/// `config set` durations: strict, overflow-proof, and still reading what earlier versions stored.
@Suite(.timed) struct DurationParsingTests {
    @Test(arguments: [
        ("8h", Int64(8 * 3600)), ("1h30m", 5400), ("90m", 5400), ("45s", 45), ("0s", 0), ("0", 0),
        ("1h30m15s", 5415), ("2m5s", 125), ("48h", 172_800), ("1h 30m", 5400), (" 8 h ", 28_800), ("007m", 420),
    ])
    func accepted(text: String, seconds: Int64) {
        #expect(SecuritySettings.parseDuration(text) == .seconds(seconds))
    }

    @Test(arguments: ["1h1h", "30m1h", "1s1m", "1m1m", "1h30", "h", "", "   ", "1d", "-5m", "+5m", "1.5h", "5mm", "٣s", "1h,30m", "1 5s"])
    func refused(text: String) {
        #expect(SecuritySettings.parseDuration(text) == .invalid)
    }

    @Test(arguments: ["45", "300", "1"])
    func aBareNumberNeedsAUnit(text: String) {
        #expect(SecuritySettings.parseDuration(text) == .missingUnit)
    }

    @Test(arguments: ["2562047788015216h", "153722867280912931m", "9223372036854775808s", "99999999999999999999999", "2562047788015215h3600m"])
    func overflowIsRefusedNotATrap(text: String) {
        #expect(SecuritySettings.parseDuration(text) == .tooLong)
    }

    @Test func theLargestDurationStillFits() {
        #expect(SecuritySettings.parseDuration("9223372036854775807s") == .seconds(.max))
    }

    /// What the vault stores is `format`'s output: every value in range must read back unchanged.
    @Test func everyFormattedValueReadsBack() {
        for seconds in Array(Int64(0)...7300) + [28_800, 86_399, 172_800] {
            #expect(SecuritySettings.parseDuration(SecuritySettings.format(.seconds(seconds))) == .seconds(seconds))
        }
    }

    @Test func setExplainsEachRefusalOnOneLine() throws {
        var settings = SecuritySettings()
        for (text, expected) in [
            ("45", "add a unit: 45s, 30m or 8h"), ("2562047788015216h", "too long"), ("1h1h", "at most once each, in that order"),
            ("10s", "must be from 1m to 48h"),
        ] {
            let error = #expect(throws: AuthError.self) { try settings.set(.cacheExpiry, to: text) }
            #expect(error?.code == .invalidInput)
            #expect(error?.message.contains(expected) == true, "\(text): \(error?.message ?? "")")
            #expect(error?.message.contains("\n") == false)
        }
        try settings.set(.cacheExpiry, to: "1h30m")
        #expect(settings.cacheExpiry == .seconds(5400))
        try settings.set(.reuseWindow, to: "0")
        #expect(settings.reuseWindow == .zero)
    }
}
