import Synchronization

/// A one-line progress bar on stderr for work over many items (import, backup, export): drawn only
/// when stderr is a terminal, the output is not JSON and the work is big enough to wait for, so a
/// script sees nothing of it and stdout is never touched. Redrawn only when the whole percentage
/// changes (at most 100 writes), and wiped when the work ends.
final class ProgressReporter: Sendable {
    /// Below this many items the work is over before a bar would help.
    static let threshold = 2_000
    static let width = 30

    private let label: String
    private let total: Int
    private let stream: (any OutputStream)?
    private let shown = Mutex(-1)

    init(_ label: String, total: Int, console: Console, json: Bool = false, threshold: Int = ProgressReporter.threshold) {
        self.label = label
        self.total = total
        stream = console.err.isTerminal && !json && total >= threshold ? console.err : nil
    }

    /// Whether a bar is drawn at all.
    var isVisible: Bool { stream != nil }

    /// `update` as a callback for work that reports its progress, or nil when no bar is drawn (so
    /// the work does not call back for nothing).
    var callback: ((Int) -> Void)? {
        guard isVisible else { return nil }
        return { [self] done in update(done) }
    }

    /// `done` of the total items are finished.
    func update(_ done: Int) {
        guard let stream else { return }
        let percent = total <= 0 ? 100 : min(100, max(0, done) * 100 / total)
        let changed = shown.withLock { last in
            guard percent != last else { return false }
            last = percent
            return true
        }
        if changed { stream.write("\r" + Self.line(label, done: done, total: total)) }
    }

    /// Wipes the bar, so what is printed next starts on a clean line.
    func finish() {
        guard let stream, shown.withLock({ $0 >= 0 }) else { return }
        stream.write("\r\u{1B}[2K")
    }

    /// `Importing [#########---------------------] 300/1000`.
    static func line(_ label: String, done: Int, total: Int) -> String {
        let clamped = min(max(done, 0), max(total, 0))
        let filled = total <= 0 ? width : clamped * width / total
        return "\(label) [" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
            + "] \(clamped)/\(max(total, 0))"
    }
}
