import Logging
import Synchronization

/// Keeps every line a logger writes, so a test can count what the service logged.
final class CapturedLog: Sendable {
    struct Line: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: [String: String]
    }

    private let captured = Mutex<[Line]>([])

    var lines: [Line] { captured.withLock { $0 } }

    /// A logger at `trace` whose lines land here.
    var logger: Logger {
        var logger = Logger(label: "fingerlockd-test") { _ in Handler(log: self) }
        logger.logLevel = .trace
        return logger
    }

    fileprivate func append(_ line: Line) { captured.withLock { $0.append(line) } }

    private struct Handler: LogHandler {
        let log: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let all = metadata.merging(event.metadata ?? [:]) { $1 }
            log.append(Line(level: event.level, message: event.message.description, metadata: all.mapValues { "\($0)" }))
        }
    }
}
