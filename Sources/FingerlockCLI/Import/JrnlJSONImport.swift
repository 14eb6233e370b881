import Foundation
import Vault

/// Reads jrnl's `--export json`: `{"tags": {...}, "entries": [{"title", "body", "date": "YYYY-MM-DD",
/// "time": "HH:MM", "tags": ["@tag"], "starred": bool}]}` (jrnl's json_exporter). jrnl keeps local
/// times without a zone: they are read in `timeZone`. Tags lose jrnl's tag symbol (`@` or `#`); a
/// starred entry gets the tag `starred`. Each entry becomes a new note (jrnl has no ids to keep).
enum JrnlJSONImport {
    private struct Journal: Decodable {
        var entries: [Entry]
    }

    private struct Entry: Decodable {
        var title: String
        var body: String
        var date: String
        var time: String
        var tags: [String]?
        var starred: Bool?
    }

    static func notes(from data: Data, timeZone: TimeZone) throws -> [Note] {
        let journal: Journal
        do {
            journal = try JSONDecoder().decode(Journal.self, from: data)
        } catch let error as DecodingError {
            throw CLIError(.dataError, "The jrnl JSON export is malformed: \(ImportProblem.describe(error)); nothing was imported.")
        } catch {
            throw CLIError(.dataError, "The jrnl JSON export is malformed; nothing was imported.")
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return try journal.entries.enumerated().map { index, entry in
            let date: Date
            do throws(ImportDates.Problem) {
                date = try stamp(entry.date, entry.time, calendar)
            } catch {
                throw CLIError(
                    .dataError,
                    "The jrnl JSON export is malformed: entry \(index + 1): \(ImportDates.quoted("\(entry.date) \(entry.time)")) \(error.predicate); nothing was imported."
                )
            }
            var tags: [String] = []
            for raw in entry.tags ?? [] {
                var tag = raw.trimmingCharacters(in: .whitespaces)
                if let first = tag.first, first == "@" || first == "#" { tag.removeFirst() }
                if !tag.isEmpty, !tags.contains(where: { $0.lowercased() == tag.lowercased() }) { tags.append(tag) }
            }
            if entry.starred == true, !tags.contains("starred") { tags.append("starred") }
            let note = Note(title: entry.title, body: entry.body, tags: tags, created: date, modified: date)
            if ImportLimits.size(of: note) > ImportLimits.noteBytes { throw ImportLimits.noteTooLarge("Entry \(index + 1) of the jrnl JSON export") }
            return note
        }
    }

    /// "2024-03-05" and "09:30" (jrnl writes `%Y-%m-%d` and `%H:%M`; seconds are accepted) as a
    /// moment in `calendar`'s zone. Read strictly, as `ImportDates` reads ISO 8601: Foundation's
    /// calendar would turn a year past its range into year 1 and February 30 into March 1.
    private static func stamp(_ day: String, _ time: String, _ calendar: Calendar) throws(ImportDates.Problem) -> Date {
        let form = ImportDates.Problem(predicate: "is not a date and time (YYYY-MM-DD, HH:MM)")
        var dayFields = ImportDates.Digits(day)
        var timeFields = ImportDates.Digits(time)
        guard let year = dayFields.number(4), dayFields.skip("-"), let month = dayFields.number(2), dayFields.skip("-"),
            let dayOfMonth = dayFields.number(2), dayFields.atEnd,
            let hour = timeFields.number(2), timeFields.skip(":"), let minute = timeFields.number(2)
        else { throw form }
        var second = 0
        if timeFields.skip(":") {
            guard let seconds = timeFields.number(2) else { throw form }
            second = seconds
        }
        guard timeFields.atEnd else { throw form }
        _ = try ImportDates.dayNumber(year: year, month: month, day: dayOfMonth)
        try ImportDates.checkTime(hour: hour, minute: minute, second: second)
        let components = DateComponents(year: year, month: month, day: dayOfMonth, hour: hour, minute: minute, second: second)
        guard let date = calendar.date(from: components) else { throw form }
        return date
    }
}
