import FingerlockTestSupport
import Foundation
import Testing

@testable import FingerlockCLI

/// `--json` output as scripts and people read it.
@Suite(.timed)
struct JSONOutputTests {
    @Test func emptyArraysAndObjectsAreWrittenOnOneLine() throws {
        struct Listing: Encodable {
            var notes: [String] = []
            var tags: [String: Int] = [:]
            var title = "a [\n\n] title"  // a string's newlines are escaped, never touched
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let pretty = String(decoding: try encoder.encode(Listing()), as: UTF8.self)
        let top = String(decoding: try encoder.encode([String]()), as: UTF8.self)
        #expect(Console.closingEmptyContainers(top) == "[]")
        let closed = Console.closingEmptyContainers(pretty)
        #expect(closed.contains("\"notes\" : []") && closed.contains("\"tags\" : {}"), "\(closed)")
        #expect(closed.contains(#""a [\n\n] title""#))
        let decoded = try JSONSerialization.jsonObject(with: Data(closed.utf8)) as? [String: Any]
        #expect(decoded?["title"] as? String == "a [\n\n] title")
    }
}
