/// The scripting grammar of `FINGERLOCK_SIMULATED_TOUCHES`: a comma-separated list of items, each a
/// finger name, `unknown`, `retry:short|center|remove|general`, `timeout`, `hold` (a scan that
/// waits its whole timeout), `unplug`, `busy` or `error`, optionally repeated with `*N`; `absent`
/// as the first item means no reader is connected.
public struct SimulatedScript: Sendable, Equatable {
    public var touches: [SimulatedTouch]
    /// `absent` was the first item: the reader is not connected.
    public var readerAbsent: Bool

    public init(touches: [SimulatedTouch], readerAbsent: Bool = false) {
        self.touches = touches
        self.readerAbsent = readerAbsent
    }

    /// The largest `*N` accepted, so a typo cannot allocate gigabytes.
    public static let maximumRepeat = 10_000

    public struct ParseError: Error, Equatable, Sendable, CustomStringConvertible {
        public var item: String
        public var reason: String
        public var description: String {
            "FINGERLOCK_SIMULATED_TOUCHES: \(reason) (item '\(item)'). Items: a finger name (\(Finger.allCases[6].rawValue), …), "
                + "unknown, retry:short|center|remove|general, timeout, hold, unplug, busy, error, ITEM*N; absent first."
        }
    }

    public init(parsing text: String) throws(ParseError) {
        var touches: [SimulatedTouch] = []
        var absent = false
        let items = text.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: " \t\n") }
        for (index, item) in items.enumerated() {
            if item.isEmpty {
                // "" (set but empty) is an empty script; a stray comma elsewhere is a typo.
                if items.count == 1 { break }
                throw ParseError(item: item, reason: "empty item")
            }
            if item == "absent" {
                guard index == 0 else { throw ParseError(item: item, reason: "'absent' is only valid as the first item") }
                absent = true
                continue
            }
            var name = Substring(item)
            var count = 1
            if let star = item.lastIndex(of: "*") {
                name = item[..<star]
                guard let repeatCount = Int(item[item.index(after: star)...]), repeatCount >= 1,
                    repeatCount <= Self.maximumRepeat
                else {
                    throw ParseError(item: item, reason: "the repeat count must be a whole number from 1 to \(Self.maximumRepeat)")
                }
                count = repeatCount
            }
            let touch = try Self.touch(named: String(name), item: item)
            touches += Array(repeating: touch, count: count)
        }
        self.init(touches: touches, readerAbsent: absent)
    }

    private static func touch(named name: String, item: String) throws(ParseError) -> SimulatedTouch {
        switch name {
        case "unknown": return .unknown
        case "timeout": return .timeout
        case "hold": return .hold
        case "unplug": return .unplug
        case "busy": return .busy
        case "error": return .error
        case "not-stored": return .notStored
        case "read-hold": return .readThenHold
        default:
            if name.hasPrefix("retry:") {
                let reason = String(name.dropFirst("retry:".count))
                guard let retry = RetryReason(rawValue: reason) else {
                    throw ParseError(item: item, reason: "unknown retry reason '\(reason)'")
                }
                return .retry(retry)
            }
            guard let finger = Finger(name: name) else {
                throw ParseError(item: item, reason: "'\(name)' is not a finger name or a known item")
            }
            return .finger(finger)
        }
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: String) -> String {
        var scalars = Substring(self)
        while let first = scalars.first, set.contains(first) { scalars.removeFirst() }
        while let last = scalars.last, set.contains(last) { scalars.removeLast() }
        return String(scalars)
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: String) -> String { String(self).trimmingCharacters(in: set) }
}
