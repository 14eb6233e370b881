#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Foundation
import Vault

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
    func render(_ summaries: [NoteSummary], _ deliver: ([UInt8]) -> Void) {
        let workers = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 8))
        let chunkCount = (summaries.count + Self.chunkSize - 1) / Self.chunkSize
        var first = 0
        while first < chunkCount {
            // One round: a chunk per worker, made together, then delivered in order.
            let round = min(workers, chunkCount - first)
            let chunks = ChunkSlots(count: round)
            let base = first
            DispatchQueue.concurrentPerform(iterations: round) { slot in
                let start = (base + slot) * Self.chunkSize
                chunks.set(slot, lines(summaries, start..<min(start + Self.chunkSize, summaries.count)))
            }
            for slot in 0..<round { deliver(chunks.take(slot)) }
            first += round
        }
    }

    /// The lines of `summaries[range]`.
    func lines(_ summaries: [NoteSummary], _ range: Range<Int>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(range.count * 64)
        // Notes next to each other in a listing mostly share a day: its text is made once per run.
        var day: (number: Double, text: [UInt8]) = (.nan, [])
        summaries.withUnsafeBufferPointer { buffer in
            for index in range {
                styled(&out, "1") { out in Self.appendShortID(buffer[index].id, to: &out) }
                out.append(contentsOf: Self.gap)
                let modified = buffer[index].modified
                let number = (modified.timeIntervalSince1970 / 86_400).rounded(.down)
                if number != day.number { day = (number, Array(UTCDay.string(modified).utf8)) }
                out.append(contentsOf: day.text)
                out.append(contentsOf: Self.gap)
                if buffer[index].title.isEmpty {
                    out.append(contentsOf: Self.untitled)
                } else {
                    Self.appendSafe(buffer[index].title, to: &out)
                }
                let tags = buffer[index].tags
                if !tags.isEmpty {
                    out.append(contentsOf: Self.gap)
                    for (position, tag) in tags.enumerated() {
                        if position > 0 { styled(&out, "2") { $0.append(UInt8(ascii: " ")) } }
                        styled(&out, "2") { out in
                            out.append(UInt8(ascii: "#"))
                            Self.appendSafe(tag, to: &out)
                        }
                    }
                }
                out.append(UInt8(ascii: "\n"))
            }
        }
        return out
    }

    /// `text` made by `body`, wrapped in the SGR `code` when colour is on (as `Console.styled`).
    private func styled(_ out: inout [UInt8], _ code: StaticString, _ body: (inout [UInt8]) -> Void) {
        guard useColor else { return body(&out) }
        out.append(0x1B)
        out.append(UInt8(ascii: "["))
        code.withUTF8Buffer { out.append(contentsOf: $0) }
        out.append(UInt8(ascii: "m"))
        body(&out)
        out.append(contentsOf: Self.reset)
    }

    private static let gap: [UInt8] = Array("  ".utf8)
    private static let untitled: [UInt8] = Array("(untitled)".utf8)
    private static let reset: [UInt8] = [0x1B] + Array("[0m".utf8)
    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// The first 8 hex digits of the id (`NotesCommand.shortID`).
    private static func appendShortID(_ id: UUID, to out: inout [UInt8]) {
        let bytes = id.uuid
        for byte in [bytes.0, bytes.1, bytes.2, bytes.3] {
            out.append(hexDigits[Int(byte >> 4)])
            out.append(hexDigits[Int(byte & 0xF)])
        }
    }

    /// `TerminalSafeText.line(text)`: printable ASCII needs no escape and is copied as it is.
    private static func appendSafe(_ text: String, to out: inout [UInt8]) {
        let copied = text.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            guard bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return false }
            out.append(contentsOf: bytes)
            return true
        }
        if copied != true { out.append(contentsOf: TerminalSafeText.line(text).utf8) }
    }
}

/// The chunks of one round. @unchecked Sendable: each slot is written by exactly one iteration of
/// `concurrentPerform`, which returns only after every iteration has, and is read after that.
private final class ChunkSlots: @unchecked Sendable {
    private var slots: UnsafeMutableBufferPointer<[UInt8]>

    init(count: Int) {
        slots = .allocate(capacity: count)
        slots.initialize(repeating: [])
    }

    func set(_ index: Int, _ value: [UInt8]) { slots[index] = value }

    func take(_ index: Int) -> [UInt8] {
        var value: [UInt8] = []
        swap(&value, &slots[index])
        return value
    }

    deinit {
        slots.deinitialize()
        slots.deallocate()
    }
}
