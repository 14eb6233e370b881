import FingerlockTestSupport
import Foundation
import Testing
import Vault

/// Notes as JSON (export, `--json`): ids in lower case, as the CLI prints them, and read back whole.
@Suite(.timed) struct NoteCodingTests {
    let note = Note(
        id: UUID(uuidString: "3F2A1B2C-0000-4000-8000-00000000ABCD")!, title: "T", body: "b\n", tags: ["x"],
        created: Date(timeIntervalSince1970: 1_700_000_000), modified: Date(timeIntervalSince1970: 1_700_000_100))

    func encoded<T: Encodable>(_ value: T) throws -> [String: Any] {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        return try #require(try JSONSerialization.jsonObject(with: encoder.encode(value)) as? [String: Any])
    }

    @Test func notesAndSummariesEncodeTheIdInLowerCase() throws {
        #expect(try encoded(note)["id"] as? String == "3f2a1b2c-0000-4000-8000-00000000abcd")
        #expect(try encoded(note.summary)["id"] as? String == "3f2a1b2c-0000-4000-8000-00000000abcd")
        #expect(Set(try encoded(note).keys) == ["id", "title", "body", "tags", "created", "modified"])
        #expect(Set(try encoded(note.summary).keys) == ["id", "title", "tags", "created", "modified"])
    }

    @Test func anEncodedNoteDecodesToTheSameNote() throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        #expect(try decoder.decode(Note.self, from: encoder.encode(note)) == note)
    }
}
