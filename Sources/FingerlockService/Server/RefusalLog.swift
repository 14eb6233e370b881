import Logging
import Synchronization

/// Logs refusals of one kind (connections over the limits, oversized messages) so that a flood of
/// them cannot flood the journal. Every refusal used to be one line: one process looping on
/// connect wrote 120k lines in 3 s, enough to push other users' entries out of journald's rate
/// limit. Now the first few of a window are logged as they happen; the rest are counted, and one
/// summary line ("N more connections refused in the last T s", with the uids seen) follows when
/// the window has ended: at the next refusal, when the accept loop wakes for it, or at shutdown.
/// The window starts at the first refusal after a quiet spell, so a lone refusal is always logged.
final class RefusalLog: Sendable {
    /// What one `record` asks to be logged.
    private enum Line {
        case refusal
        case summary(count: Int, seconds: Int, uids: String)
    }

    private struct Window {
        var start: ContinuousClock.Instant
        var logged = 0
        var unlogged = 0
        /// The first few uids among the unlogged refusals, and how many others there were.
        var uids: [UInt32] = []
        var otherUIDs = false
    }

    private let logger: Logger
    private let level: Logger.Level
    private let message: Logger.Message
    /// The summary's noun phrase: "connections refused" gives "N more connections refused in the last T s".
    private let summaryNoun: String
    private let window: Duration
    private let loggedPerWindow: Int
    private let now: @Sendable () -> ContinuousClock.Instant
    private let current = Mutex<Window?>(nil)

    /// The uids a summary names, so it stays one short line whoever floods.
    static let uidsNamed = 8

    init(
        logger: Logger, level: Logger.Level, message: Logger.Message, summaryNoun: String, window: Duration, loggedPerWindow: Int,
        now: @escaping @Sendable () -> ContinuousClock.Instant
    ) {
        self.logger = logger
        self.level = level
        self.message = message
        self.summaryNoun = summaryNoun
        self.window = window
        self.loggedPerWindow = loggedPerWindow
        self.now = now
    }

    /// One refusal of `uid`: logged with `metadata` while the window allows, else counted.
    func record(uid: UInt32, metadata: Logger.Metadata) {
        let instant = now()
        let lines: [Line] = current.withLock { window in
            var lines: [Line] = []
            if let ended = window, instant - ended.start >= self.window {
                if let summary = Self.summary(of: ended, at: instant) { lines.append(summary) }
                window = nil
            }
            var open = window ?? Window(start: instant)
            if open.logged < loggedPerWindow {
                open.logged += 1
                lines.append(.refusal)
            } else {
                open.unlogged += 1
                if !open.uids.contains(uid) {
                    if open.uids.count < Self.uidsNamed { open.uids.append(uid) } else { open.otherUIDs = true }
                }
            }
            window = open
            return lines
        }
        for line in lines { write(line, uid: uid, metadata: metadata) }
    }

    /// Logs the summary of a window that has ended (or of any window when `force`, at shutdown).
    func flush(force: Bool = false) {
        let instant = now()
        let summary: Line? = current.withLock { window in
            guard let open = window, force || instant - open.start >= self.window else { return nil }
            window = nil
            return Self.summary(of: open, at: instant)
        }
        if let summary { write(summary, uid: 0, metadata: [:]) }
    }

    /// When the open window ends if it has refusals to summarise: the accept loop wakes then.
    var summaryDue: ContinuousClock.Instant? {
        current.withLock { window in window.flatMap { $0.unlogged > 0 ? $0.start + self.window : nil } }
    }

    private static func summary(of window: Window, at instant: ContinuousClock.Instant) -> Line? {
        guard window.unlogged > 0 else { return nil }
        let elapsed = instant - window.start
        // Whole seconds, rounded up: "in the last 0 s" would read as nothing.
        let seconds = Int(elapsed.components.seconds) + (elapsed.components.attoseconds > 0 ? 1 : 0)
        let uids = window.uids.map(String.init).joined(separator: ", ") + (window.otherUIDs ? " and others" : "")
        return .summary(count: window.unlogged, seconds: max(seconds, 1), uids: uids)
    }

    private func write(_ line: Line, uid: UInt32, metadata: Logger.Metadata) {
        switch line {
        case .refusal:
            logger.log(level: level, message, metadata: ["uid": "\(uid)"].merging(metadata) { $1 })
        case .summary(let count, let seconds, let uids):
            logger.log(
                level: level, "\(count) more \(summaryNoun) in the last \(seconds) s", metadata: ["uids": "\(uids)"])
        }
    }
}
