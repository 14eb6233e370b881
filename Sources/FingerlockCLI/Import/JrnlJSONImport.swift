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
            guard let date = stamp(entry.date, entry.time, calendar) else {
                throw CLIError(
                    .dataError,
                    "The jrnl JSON export is malformed: entry \(index + 1): '\(entry.date) \(entry.time)' is not a date and time (YYYY-MM-DD, HH:MM); nothing was imported.")
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

    /// "2024-03-05" and "09:30" (jrnl writes `%Y-%m-%d` and `%H:%M`) as a moment in `calendar`'s zone.
    private static func stamp(_ day: String, _ time: String, _ calendar: Calendar) -> Date? {
        let dayParts = day.split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
        let timeParts = time.split(separator: ":", omittingEmptySubsequences: false).map { Int($0) }
        guard dayParts.count == 3, (2...3).contains(timeParts.count), !dayParts.contains(nil), !timeParts.contains(nil) else { return nil }
        let components = DateComponents(
            year: dayParts[0], month: dayParts[1], day: dayParts[2], hour: timeParts[0], minute: timeParts[1],
            second: timeParts.count == 3 ? timeParts[2] : 0)
        guard let month = components.month, (1...12).contains(month), let dayOfMonth = components.day, (1...31).contains(dayOfMonth),
            let hour = components.hour, (0...23).contains(hour), let minute = components.minute, (0...59).contains(minute),
            components.isValidDate(in: calendar)
        else { return nil }
        return calendar.date(from: components)
    }
}
