#if canImport(Glibc)
import Glibc
#endif
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
