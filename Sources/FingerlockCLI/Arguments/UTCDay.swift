import ArgumentParser
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `YYYY-MM-DD` in UTC, as ISO 8601 dates elsewhere in the output, without a formatter per call.
enum UTCDay {
    static func string(_ date: Date) -> String {
        var time = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&time, &parts)
        let year = Int(parts.tm_year) + 1900
        let month = Int(parts.tm_mon) + 1
        let day = Int(parts.tm_mday)
        return "\(year)-\(month < 10 ? "0" : "")\(month)-\(day < 10 ? "0" : "")\(day)"
    }
}

extension UTCDay {
    /// `YYYY-MM-DD HH:MM` in UTC.
    static func time(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return string(date) + " " + two(parts.tm_hour) + ":" + two(parts.tm_min)
    }

    /// The first moment (00:00 UTC) of a day written `YYYY-MM-DD`, as listings show days; a
    /// usage error naming `option` for anything else, including days that do not exist.
    static func start(_ text: String, option: String, now: Date = Date()) throws(ValidationError) -> Date {
        let problem = ValidationError(
            "\(option) takes a day as YYYY-MM-DD (UTC), such as 2024-03-31, or today, yesterday, N days ago, N weeks ago, "
                + "last week or a weekday; \"\(text)\" is not one.")
        if let daysBack = naturalDaysBack(text, now: now) {
            let today = (now.timeIntervalSince1970 / 86_400).rounded(.down)
            return Date(timeIntervalSince1970: (today - Double(daysBack)) * 86_400)
        }
        let fields = text.split(separator: "-", omittingEmptySubsequences: false)
        guard fields.count == 3, fields[0].count == 4, fields[1].count == 2, fields[2].count == 2,
            fields.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
            let year = Int32(fields[0]), let month = Int32(fields[1]), let day = Int32(fields[2])
        else { throw problem }
        var parts = tm()
        parts.tm_year = year - 1900
        parts.tm_mon = month - 1
        parts.tm_mday = day
        let seconds = timegm(&parts)
        // timegm normalises (February 30th becomes March 2nd): a day that moved does not exist.
        guard parts.tm_year == year - 1900, parts.tm_mon == month - 1, parts.tm_mday == day else { throw problem }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }
}

extension UTCDay {
    static let weekdays = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]

    /// How many days before today (UTC) a day written as people say it is, as git's `--since` reads
    /// them: `today`, `yesterday`, `N days ago`, `N weeks ago`, `last week` (7 days ago) and a
    /// weekday (the latest one, today included; `last monday` too). Nil for anything else.
    static func naturalDaysBack(_ text: String, now: Date) -> Int? {
        let words = text.lowercased().split(whereSeparator: \.isWhitespace).map(String.init)
        switch words {
        case ["today"]: return 0
        case ["yesterday"]: return 1
        case ["last", "week"]: return 7
        default: break
        }
        if words.count == 3, words[2] == "ago", let count = Int(words[0]), count >= 0, count <= 100_000 {
            switch words[1] {
            case "day", "days": return count
            case "week", "weeks": return count * 7
            default: return nil
            }
        }
        let name = words.count == 2 && words[0] == "last" ? words[1] : words.count == 1 ? words[0] : ""
        guard let weekday = weekdays.firstIndex(where: { $0 == name || ($0.prefix(3) == name && name.count == 3) }) else { return nil }
        // 1970-01-01 was a Thursday (4).
        let today = (Int((now.timeIntervalSince1970 / 86_400).rounded(.down)) + 4) % 7
        return (today - weekday + 7) % 7
    }
}
