#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Foundation

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
    /// The first moment (00:00 UTC) of a day written `YYYY-MM-DD`, as listings show days; a
    /// usage error naming `option` for anything else, including days that do not exist.
    static func start(_ text: String, option: String) throws(ValidationError) -> Date {
        let problem = ValidationError("\(option) takes a day as YYYY-MM-DD (UTC), such as 2024-03-31; \"\(text)\" is not one.")
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
