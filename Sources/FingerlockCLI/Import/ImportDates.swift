import Foundation

/// The date forms imports accept, read strictly. Foundation's ISO 8601 parser (used before)
/// normalised whatever it was given: February 30 became March 1, a year too large for it became
/// year 1, an offset of +99:99 was applied as given. An import must not store a date nobody wrote,
/// so a day or time that does not exist is refused, as `--since` and `--until` refuse it.
enum ImportDates {
    /// Why a text is not a date, as the end of a sentence that quotes it: "'2024-02-30' is not a
    /// date that exists (February 2024 has 29 days)".
    struct Problem: Error, Equatable {
        let predicate: String

        static let form = Problem(predicate: "is not an ISO 8601 date and time (YYYY-MM-DDTHH:MM:SS and Z or ±HH:MM)")

        static func impossible(_ why: String) -> Problem { Problem(predicate: "is not a date that exists (\(why))") }
    }

    /// RFC 3339, as `export` writes it: `YYYY-MM-DDTHH:MM:SS`, optional fractional seconds, then
    /// `Z` or an offset `±HH:MM` (also `±HHMM` and `±HH`, which the parser used before took too).
    /// Years 0001 to 9999; hours 00 to 23 (no 24:00); no leap second.
    static func iso8601(_ text: String) throws(Problem) -> Date {
        var scanner = Digits(text)
        guard let year = scanner.number(4), scanner.skip("-"), let month = scanner.number(2), scanner.skip("-"),
            let day = scanner.number(2), scanner.skip("T"), let hour = scanner.number(2), scanner.skip(":"),
            let minute = scanner.number(2), scanner.skip(":"), let second = scanner.number(2)
        else { throw Problem.form }
        var fraction = 0.0
        if scanner.skip(".") {
            guard let digits = scanner.digitRun(), let value = Double("0." + digits) else { throw Problem.form }
            fraction = value
        }
        var offset = 0
        if !scanner.skip("Z") {
            let sign: Int
            if scanner.skip("+") {
                sign = 1
            } else if scanner.skip("-") {
                sign = -1
            } else {
                throw Problem.form
            }
            guard let offsetHours = scanner.number(2) else { throw Problem.form }
            var offsetMinutes = 0
            if !scanner.atEnd {
                _ = scanner.skip(":")
                guard let minutes = scanner.number(2) else { throw Problem.form }
                offsetMinutes = minutes
            }
            guard offsetHours <= 23, offsetMinutes <= 59 else {
                throw Problem.impossible("the offset from UTC is out of range (at most ±23:59)")
            }
            offset = sign * (offsetHours * 3600 + offsetMinutes * 60)
        }
        guard scanner.atEnd else { throw Problem.form }
        let days = try dayNumber(year: year, month: month, day: day)
        try checkTime(hour: hour, minute: minute, second: second)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: TimeInterval(seconds) + fraction)
    }

    /// Days since 1970-01-01 of a day that exists in the proleptic Gregorian calendar, years 1 to 9999.
    static func dayNumber(year: Int, month: Int, day: Int) throws(Problem) -> Int {
        guard (1...9999).contains(year) else { throw Problem.impossible("the year is out of range (0001 to 9999)") }
        guard (1...12).contains(month) else { throw Problem.impossible("there is no month \(month)") }
        let length = daysIn(month: month, year: year)
        guard (1...length).contains(day) else {
            throw Problem.impossible("\(monthNames[month - 1]) \(year) has \(length) days")
        }
        // Howard Hinnant's days_from_civil: years start in March, so February's length is last.
        let shifted = month <= 2 ? year - 1 : year
        let era = shifted / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func checkTime(hour: Int, minute: Int, second: Int) throws(Problem) {
        guard hour <= 23, minute <= 59, second <= 59 else {
            throw Problem.impossible("there is no time \(hour):\(minute < 10 ? "0" : "")\(minute):\(second < 10 ? "0" : "")\(second)")
        }
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    private static let monthNames = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December",
    ]

    /// The text quoted in an error: one line, and not a whole pasted document.
    static func quoted(_ text: String) -> String {
        "'\(TerminalSafeText.line(text.count > 40 ? String(text.prefix(40)) + "…" : text))'"
    }

    /// Reads fixed-width ASCII fields from the start of a text.
    struct Digits {
        private var rest: Substring.UTF8View

        init(_ text: String) { rest = text[...].utf8 }

        var atEnd: Bool { rest.isEmpty }

        /// Exactly `count` ASCII digits, as a number.
        mutating func number(_ count: Int) -> Int? {
            let field = rest.prefix(count)
            guard field.count == count, field.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
            rest = rest.dropFirst(count)
            return field.reduce(0) { $0 * 10 + Int($1 - 0x30) }
        }

        /// One or more ASCII digits, as written (at most 9: nanoseconds).
        mutating func digitRun() -> String? {
            let field = rest.prefix { (0x30...0x39).contains($0) }
            guard (1...9).contains(field.count) else { return nil }
            rest = rest.dropFirst(field.count)
            return String(decoding: field, as: UTF8.self)
        }

        mutating func skip(_ character: Unicode.Scalar) -> Bool {
            guard rest.first == UInt8(character.value) else { return false }
            rest = rest.dropFirst()
            return true
        }
    }
}
