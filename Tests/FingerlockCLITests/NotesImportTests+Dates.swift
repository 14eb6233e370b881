import FingerlockCLITestSupport
import Foundation
import Testing

/// Dates that do not exist are refused on import, as `--since` and `--until` refuse them: the
/// parser used before turned February 30 into March 1, 24:00 into the next day, applied an
/// offset of +99:99, and took years past 9999 that no listing could show.
extension NotesImportTests {
    @Test(arguments: [
        ("2024-02-30T10:00:00Z", "is not a date that exists (February 2024 has 29 days)"),
        ("2023-02-29T10:00:00Z", "is not a date that exists (February 2023 has 28 days)"),
        ("99999-01-01T00:00:00Z", "is not an ISO 8601 date and time (YYYY-MM-DDTHH:MM:SS and Z or ±HH:MM)"),
        ("2024-01-01T00:00:00+99:99", "is not a date that exists (the offset from UTC is out of range (at most ±23:59))"),
        ("2024-01-01T24:00:00Z", "is not a date that exists (there is no time 24:00:00)"),
    ])
    func anImpossibleDateInAFingerlockExportImportsNothing(date: String, reason: String) async throws {
        let runner = try await vault()
        let good = "2024-01-02T03:04:05Z"
        func entry(_ created: String) -> String {
            #"{"id": "\#(UUID().uuidString.lowercased())", "title": "t", "body": "b", "tags": [], "created": "\#(created)", "modified": "\#(good)"}"#
        }
        let json = "[\(entry(good)), \(entry(date))]"
        let result = try await runner.run(["notes", "import", "--format", "fingerlock-json"], environment: touch, stdin: json)
        #expect(result.status == 6)
        #expect(
            result.stderr
                == "fingerlock: The fingerlock JSON export is malformed: entry 2, \"created\": '\(date)' \(reason); nothing was imported.\n")
        #expect(try await list(runner).isEmpty)
    }

    @Test(arguments: [
        ("10000-01-01", "09:00", "is not a date and time (YYYY-MM-DD, HH:MM)"),
        ("2024-02-30", "09:00", "is not a date that exists (February 2024 has 29 days)"),
        ("2024-04-31", "09:00", "is not a date that exists (April 2024 has 30 days)"),
        ("0000-01-01", "09:00", "is not a date that exists (the year is out of range (0001 to 9999))"),
        ("2024-01-01", "24:00", "is not a date that exists (there is no time 24:00:00)"),
    ])
    func anImpossibleDateInAJrnlExportImportsNothing(day: String, time: String, reason: String) async throws {
        let runner = try await vault(["TZ": "UTC"])
        let journal = """
            {"tags": {}, "entries": [
              {"title": "fine", "body": "", "date": "2024-01-01", "time": "09:00"},
              {"title": "impossible", "body": "", "date": "\(day)", "time": "\(time)"}
            ]}
            """
        let result = try await runner.run(["notes", "import", "--format", "jrnl-json"], environment: touch, stdin: journal)
        #expect(result.status == 6)
        #expect(result.stderr == "fingerlock: The jrnl JSON export is malformed: entry 2: '\(day) \(time)' \(reason); nothing was imported.\n")
        #expect(try await list(runner).isEmpty)
    }

    @Test func offsetsAndFractionsThatExistStillImport() async throws {
        let runner = try await vault()
        let dates = ["2024-02-29T12:00:00+01:00", "2024-02-29T12:00:00-0530", "2024-02-29T12:00:00+01", "2024-02-29T12:00:00.25Z"]
        let json =
            "["
            + dates.map { date in
                #"{"id": "\#(UUID().uuidString.lowercased())", "title": "\#(date)", "body": "b", "tags": [], "created": "\#(date)", "modified": "\#(date)"}"#
            }.joined(separator: ",") + "]"
        let result = try await runner.run(["notes", "import", "--format", "fingerlock-json"], environment: touch, stdin: json)
        #expect(result.status == 0, "\(result.stderr)")
        let created = Dictionary(uniqueKeysWithValues: try await export(runner).map { ($0["title"] ?? "", $0["created"] ?? "") })
        #expect(
            created == [
                "2024-02-29T12:00:00+01:00": "2024-02-29T11:00:00Z", "2024-02-29T12:00:00-0530": "2024-02-29T17:30:00Z",
                "2024-02-29T12:00:00+01": "2024-02-29T11:00:00Z", "2024-02-29T12:00:00.25Z": "2024-02-29T12:00:00Z",
            ])
    }
}
