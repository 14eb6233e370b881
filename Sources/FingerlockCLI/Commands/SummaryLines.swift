import Dispatch
import Foundation
import Vault

#if canImport(Glibc)
    import Glibc
#endif

/// The lines of a plain listing (`id  day  title  #tag #tag`), made as UTF-8 bytes in chunks on
/// all cores and handed over in order: building them as Swift strings, one append at a time on
/// one thread, took longer than decrypting the notes (100k lines: ~130 ms of a 400 ms listing).
///
/// The text is exactly what the console's string helpers make: `Console.bold`/`dim` around the id
/// and the tags when `useColor`, `UTCDay` days, and `TerminalSafeText.line` for titles and tags.
/// A title or tag of printable ASCII is copied as it is; anything else goes through
/// `TerminalSafeText` itself.
struct SummaryLines: Sendable {
    let useColor: Bool

    /// Lines per chunk: enough that a chunk's hand-over costs little, few enough that a listing
    /// streams rather than waits for its last line.
    static let chunkSize = 4096

    /// Calls `deliver` with the lines of `summaries` in order, a chunk at a time.
    ///
    /// The summaries are used up as their lines are made: each chunk's are released on the core that
    /// made its lines. Released afterwards on one thread, 100k summaries (a title and a tag array
    /// each) took about as long as making all the lines.
    func render(_ summaries: consuming [NoteSummary], _ deliver: ([UInt8]) -> Void) {
        let workers = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 8))
        var summaries = consume summaries
        let count = summaries.count
        let chunkCount = (count + Self.chunkSize - 1) / Self.chunkSize
        summaries.withUnsafeMutableBufferPointer { buffer in
            let shared = ChunkedSummaries(buffer)
            var first = 0
            while first < chunkCount {
                // One round: a chunk per worker, made together, then delivered in order.
                let round = min(workers, chunkCount - first)
                let chunks = WorkerSlots<[UInt8]>(count: round, initial: [])
                let base = first
                DispatchQueue.concurrentPerform(iterations: round) { slot in
                    let start = (base + slot) * Self.chunkSize
                    chunks.set(slot, shared.takeLines(start..<min(start + Self.chunkSize, count), self))
                }
                for slot in 0..<round { deliver(chunks.take(slot)) }
                first += round
            }
        }
    }

    /// Appends lines, one summary at a time.
    struct LineWriter {
        let lines: SummaryLines
        var out: [UInt8] = []
        /// Notes next to each other in a listing mostly share a day: its text is made once per run.
        private var day: (number: Double, text: [UInt8]) = (.nan, [])

        init(_ lines: SummaryLines, lineCount: Int) {
            self.lines = lines
            out.reserveCapacity(lineCount * 64)
        }

        mutating func append(_ note: borrowing NoteSummary) {
            lines.styled(&out, "1") { out in SummaryLines.appendShortID(note.id, to: &out) }
            out.append(contentsOf: SummaryLines.gap)
            let modified = note.modified
            let number = (modified.timeIntervalSince1970 / 86_400).rounded(.down)
            if number != day.number { day = (number, Array(UTCDay.string(modified).utf8)) }
            out.append(contentsOf: day.text)
            out.append(contentsOf: SummaryLines.gap)
            if note.title.isEmpty {
                out.append(contentsOf: SummaryLines.untitled)
            } else {
                SummaryLines.appendSafe(note.title, to: &out)
            }
            if !note.tags.isEmpty {
                out.append(contentsOf: SummaryLines.gap)
                for (position, tag) in note.tags.enumerated() {
                    if position > 0 { lines.styled(&out, "2") { $0.append(UInt8(ascii: " ")) } }
                    lines.styled(&out, "2") { out in
                        out.append(UInt8(ascii: "#"))
                        SummaryLines.appendSafe(tag, to: &out)
                    }
                }
            }
            out.append(UInt8(ascii: "\n"))
        }
    }

    /// `text` made by `body`, wrapped in the SGR `code` when colour is on (as `Console.styled`).
    fileprivate func styled(_ out: inout [UInt8], _ code: StaticString, _ body: (inout [UInt8]) -> Void) {
        guard useColor else { return body(&out) }
        out.append(0x1B)
        out.append(UInt8(ascii: "["))
        code.withUTF8Buffer { out.append(contentsOf: $0) }
        out.append(UInt8(ascii: "m"))
        body(&out)
        out.append(contentsOf: Self.reset)
    }

    fileprivate static let gap: [UInt8] = Array("  ".utf8)
    fileprivate static let untitled: [UInt8] = Array("(untitled)".utf8)
    private static let reset: [UInt8] = [0x1B] + Array("[0m".utf8)
    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// The first 8 hex digits of the id (`NotesCommand.shortID`).
    fileprivate static func appendShortID(_ id: UUID, to out: inout [UInt8]) {
        let bytes = id.uuid
        for byte in [bytes.0, bytes.1, bytes.2, bytes.3] {
            out.append(hexDigits[Int(byte >> 4)])
            out.append(hexDigits[Int(byte & 0xF)])
        }
    }

    /// `TerminalSafeText.line(text)`: printable ASCII needs no escape and is copied as it is.
    fileprivate static func appendSafe(_ text: String, to out: inout [UInt8]) {
        let copied = text.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            guard bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return false }
            out.append(contentsOf: bytes)
            return true
        }
        if copied != true { out.append(contentsOf: TerminalSafeText.line(text).utf8) }
    }
}

/// The summaries being rendered, shared by the workers of each round. @unchecked Sendable: each
/// chunk's range is taken by exactly one iteration of `concurrentPerform`, ranges never overlap, and
/// the buffer outlives every round (`render` waits for each).
private final class ChunkedSummaries: @unchecked Sendable {
    private let buffer: UnsafeMutableBufferPointer<NoteSummary>
    /// What a used-up slot holds: no storage of its own, so the array's own release of it is cheap.
    private static let spent = NoteSummary(
        id: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)), title: "", tags: [], created: .distantPast,
        modified: .distantPast)

    init(_ buffer: UnsafeMutableBufferPointer<NoteSummary>) { self.buffer = buffer }

    /// The lines of `range`; each summary is moved out, used and released here, and its slot
    /// left holding `spent`.
    func takeLines(_ range: Range<Int>, _ lines: SummaryLines) -> [UInt8] {
        var writer = SummaryLines.LineWriter(lines, lineCount: range.count)
        guard let base = buffer.baseAddress else { return writer.out }
        let spent = Self.spent
        for index in range {
            let note = (base + index).move()
            (base + index).initialize(to: spent)
            writer.append(note)
        }
        return writer.out
    }
}
