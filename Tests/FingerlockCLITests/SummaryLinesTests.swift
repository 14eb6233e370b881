import FingerlockTestSupport
import Foundation
import Testing
import Vault

@testable import FingerlockCLI

/// The byte-made listing lines are the lines the console's string helpers make, and arrive whole
/// and in order however they are split into chunks.
@Suite(.timed) struct SummaryLinesTests {
    /// The listing line as the string helpers make it (the pre-bytes implementation, kept as the oracle).
    static func expectedLine(_ note: NoteSummary, color: Bool) -> String {
        func style(_ text: String, _ code: String) -> String { color ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text }
        var line = style(NotesCommand.shortID(note.id), "1") + "  " + UTCDay.string(note.modified) + "  "
        line += note.title.isEmpty ? "(untitled)" : TerminalSafeText.line(note.title)
        if !note.tags.isEmpty {
            line += "  " + note.tags.map { style("#" + TerminalSafeText.line($0), "2") }.joined(separator: style(" ", "2"))
        }
        return line + "\n"
    }

    static let awkward: [NoteSummary] = {
        let titles = [
            "plain", "", "a\u{1B}[2Jb", "one\ntwo\r\tthree", "ünïcode ✓ title", "abc\u{202E}fed", "x\u{2028}y", "\u{7F}del",
            "a title well over fifteen bytes long", "~!@#$%^&*()_+{}|:\"<>?",
        ]
        let tagSets: [[String]] = [[], ["one"], ["two", "tags"], ["bell\u{7}", "ünï", "\u{9B}31m"], ["x"]]
        return titles.indices.map { index in
            NoteSummary(
                id: UUID(), title: titles[index], tags: tagSets[index % tagSets.count],
                created: Date(timeIntervalSince1970: 0),
                // Days before and after 1970, and midnight exactly.
                modified: Date(timeIntervalSince1970: Double(index - 3) * 86_400 * 97 + Double(index) * 3_600))
        }
    }()

    @Test(arguments: [false, true])
    func everyLineIsWhatTheStringHelpersMake(color: Bool) {
        let lines = SummaryLines(useColor: color)
        for note in Self.awkward {
            var made = ""
            lines.render([note]) { made += String(decoding: $0, as: UTF8.self) }
            #expect(made == Self.expectedLine(note, color: color), "\(note.title.debugDescription)")
        }
    }

    @Test func chunksArriveWholeAndInOrder() {
        // Enough lines for several rounds of chunks on any number of cores, and a part chunk at the end.
        let count = SummaryLines.chunkSize * 19 + 123
        let notes = (0..<count).map { index in
            NoteSummary(
                id: UUID(), title: "note \(index)", tags: index % 3 == 0 ? ["t\(index % 7)"] : [],
                created: Date(timeIntervalSince1970: 0), modified: Date(timeIntervalSince1970: Double(count - index) * 600))
        }
        var delivered: [UInt8] = []
        var deliveries = 0
        SummaryLines(useColor: false).render(notes) {
            delivered += $0
            deliveries += 1
        }
        #expect(deliveries == 20)
        let expected = notes.map { Self.expectedLine($0, color: false) }.joined()
        #expect(String(decoding: delivered, as: UTF8.self) == expected)
    }

    @Test func nothingToRenderDeliversNothing() {
        var deliveries = 0
        SummaryLines(useColor: true).render([]) { _ in deliveries += 1 }
        #expect(deliveries == 0)
    }
}
