import Foundation

/// The summaries a listing or a search keeps, newest change first: all of them, or with a `limit`
/// only the newest that many. With a limit it never holds more than about twice the limit, so
/// `notes list -n 20` takes the same memory at 1k notes as at 1M: every header is still opened
/// (the dates are sealed), but the rest are let go as the scan goes.
struct NoteListing {
    private var summaries: [NoteSummary] = []
    private let limit: Int?
    /// When to cut back to `limit`: far enough above it that sorting costs little per note.
    private let cutAt: Int

    init(limit: Int?) {
        let limit = limit.map { max($0, 0) }
        self.limit = limit
        // A limit past any vault's size (`-n` takes any number) never cuts, and never overflows.
        cutAt = limit.map { $0 < Int.max / 4 ? $0 * 2 + 1024 : .max } ?? .max
    }

    mutating func add(_ summary: NoteSummary) {
        summaries.append(summary)
        if summaries.count >= cutAt { cut() }
    }

    mutating func add(contentsOf more: [NoteSummary]) {
        summaries.append(contentsOf: more)
        if summaries.count >= cutAt { cut() }
    }

    /// Everything kept, newest change first.
    mutating func finish() -> [NoteSummary] {
        cut()
        return summaries
    }

    /// Sorts on plain numbers (newest change first, then the id's bytes, so the order is total and
    /// stable), then moves the summaries into that order in place: comparing 100k titles as Unicode
    /// strings cost more than decrypting them, and sorting or copying the summaries themselves
    /// retains and releases their strings at every move.
    private mutating func cut() {
        // Fields read in place: a copy of each summary would retain its strings.
        var order = summaries.withUnsafeBufferPointer { buffer in
            buffer.indices.map { index -> (Double, UInt64, UInt64, Int) in
                let (high, low) = withUnsafeBytes(of: buffer[index].id.uuid) {
                    (
                        UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)),
                        UInt64(bigEndian: $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
                    )
                }
                return (-buffer[index].modified.timeIntervalSinceReferenceDate, high, low, index)
            }
        }
        order.sort { $0 < $1 }
        // Position k takes the summary at order[k].3: each cycle of that permutation by swaps; a
        // placed position is marked -1.
        // (The buffer's swapAt moves; the array's copied, retaining the strings.)
        summaries.withUnsafeMutableBufferPointer { buffer in
            for start in order.indices where order[start].3 >= 0 {
                var position = start
                while true {
                    let source = order[position].3
                    order[position].3 = -1
                    if source == start { break }
                    buffer.swapAt(position, source)
                    position = source
                }
            }
        }
        if let limit, summaries.count > limit { summaries.removeSubrange(limit...) }
    }
}
