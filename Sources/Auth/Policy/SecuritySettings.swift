public import AuthCore
import Foundation
public import Vault

/// The security settings, stored sealed in the vault so nobody can loosen them without unlocking it.
public struct SecuritySettings: Equatable, Sendable {
    /// How long a passcode unlock keeps the key cached for fingerprint unlocks (default 8 h, at most 48 h).
    public var cacheExpiry: Duration = .seconds(Key.cacheExpiry.defaultValue)
    /// After a successful unlock, further unlocks within this window need no touch (default 0, at most 5 min).
    public var reuseWindow: Duration = .seconds(Key.reuseWindow.defaultValue)
    /// Touches per evaluation before falling back to the passcode (default 3).
    public var maxTries = Int(Key.maxTries.defaultValue)
    /// How long a scan waits for a finger (default 30 s).
    public var scanTimeout: Duration = .seconds(Key.scanTimeout.defaultValue)
    /// How long `notes show --clip` leaves a note on the clipboard (default 45 s, as `pass -c`).
    public var clipClear: Duration = .seconds(Key.clipClear.defaultValue)
    /// Earlier revisions kept per note (default 10, at most 100; 0 keeps none).
    public var historyLimit = Int(Key.historyLimit.defaultValue)
    /// How long a removed note waits in the trash (default 30 days = 720h).
    public var trashKeep: Duration = .seconds(Key.trashKeep.defaultValue)

    public init() {}

    /// What the vault keeps of notes' past under these settings.
    public var noteRetention: NoteRetention {
        NoteRetention(revisionsKept: historyLimit, trashKept: TimeInterval(trashKeep.components.seconds))
    }

    /// The keys `config get|set` accepts; their bounds and defaults are AuthCore's, shared with
    /// fingerlockd.
    public typealias Key = SecuritySetting

    public func value(_ key: Key) -> String {
        switch key {
        case .cacheExpiry: Self.format(cacheExpiry)
        case .reuseWindow: Self.format(reuseWindow)
        case .maxTries: String(maxTries)
        case .scanTimeout: Self.format(scanTimeout)
        case .clipClear: Self.format(clipClear)
        case .historyLimit: String(historyLimit)
        case .trashKeep: Self.format(trashKeep)
        }
    }

    /// The setting as a number: seconds for a duration, else the count (`config get --json`).
    public func amount(_ key: Key) -> Int64 {
        switch key {
        case .cacheExpiry: cacheExpiry.components.seconds
        case .reuseWindow: reuseWindow.components.seconds
        case .maxTries: Int64(maxTries)
        case .scanTimeout: scanTimeout.components.seconds
        case .clipClear: clipClear.components.seconds
        case .historyLimit: Int64(historyLimit)
        case .trashKeep: trashKeep.components.seconds
        }
    }

    /// Sets `key` from user text (a duration such as "8h", "1h30m" or "45s"; a whole number for max-tries).
    public mutating func set(_ key: Key, to text: String) throws(AuthError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        let amount: Int64
        if key.isDuration {
            switch Self.parseDuration(trimmed) {
            case .seconds(let seconds): amount = seconds
            case .missingUnit:
                throw AuthError(.invalidInput, "\(key.rawValue): '\(text)' has no unit; add a unit: 45s, 30m or 8h.")
            case .tooLong:
                throw AuthError(.invalidInput, "\(key.rawValue): '\(text)' is far too long a duration.")
            case .invalid:
                throw AuthError(
                    .invalidInput,
                    "\(key.rawValue): '\(text)' is not a duration such as 8h, 1h30m or 45s (h, m and s at most once each, in that order).")
            }
        } else {
            guard let number = Int64(trimmed) else {
                throw AuthError(.invalidInput, "\(key.rawValue): '\(text)' is not a whole number.")
            }
            amount = number
        }
        guard key.range.contains(amount) else {
            let low = key.isDuration ? Self.format(.seconds(key.range.lowerBound)) : String(key.range.lowerBound)
            let high = key.isDuration ? Self.format(.seconds(key.range.upperBound)) : String(key.range.upperBound)
            throw AuthError(.invalidInput, "\(key.rawValue) must be from \(low) to \(high).")
        }
        switch key {
        case .cacheExpiry: cacheExpiry = .seconds(amount)
        case .reuseWindow: reuseWindow = .seconds(amount)
        case .maxTries: maxTries = Int(amount)
        case .scanTimeout: scanTimeout = .seconds(amount)
        case .clipClear: clipClear = .seconds(amount)
        case .historyLimit: historyLimit = Int(amount)
        case .trashKeep: trashKeep = .seconds(amount)
        }
    }

    /// A duration typed for `what` (an option's name), read as `config set` reads one (`8h`, `90m`),
    /// plus whole days (`7d`), which a trash age is most often counted in.
    public static func duration(_ text: String, for what: String) throws(AuthError) -> Duration {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        if trimmed.hasSuffix("d"), let days = Int64(trimmed.dropLast()), days >= 0, days <= 100_000 {
            return .seconds(days * 86_400)
        }
        switch parseDuration(trimmed) {
        case .seconds(let seconds): return .seconds(seconds)
        case .missingUnit: throw AuthError(.invalidInput, "\(what): '\(text)' has no unit; add a unit: 7d, 12h or 30m.")
        case .tooLong: throw AuthError(.invalidInput, "\(what): '\(text)' is far too long a duration.")
        case .invalid: throw AuthError(.invalidInput, "\(what): '\(text)' is not a duration such as 7d, 12h or 1h30m.")
        }
    }

    static let storagePrefix = "security."

    /// Reads the settings from the vault; a value that is missing keeps its default.
    public init(vault: Vault) throws {
        self.init()
        // The whole set, checked against the manifest: a deleted or rolled-back setting (which would
        // quietly restore a looser default) is reported as tampering, not believed.
        let stored = try vault.settings()
        for key in Key.allCases {
            guard let data = stored[Self.storagePrefix + key.rawValue] else { continue }
            guard let text = String(data: data, encoding: .utf8) else {
                throw AuthError(.dataError, "The stored setting \(key.rawValue) is not text.")
            }
            do {
                try set(key, to: text)
            } catch {
                throw AuthError(.dataError, "The stored setting \(key.rawValue) is invalid ('\(text)').")
            }
        }
    }

    /// Stores one setting, sealed.
    public func save(_ key: Key, to vault: Vault) throws {
        try vault.setSetting(value(key), for: Self.storagePrefix + key.rawValue)
    }

    /// What `parseDuration` makes of a text.
    enum ParsedDuration: Equatable {
        case seconds(Int64)
        /// Digits alone: 45 could mean seconds or minutes, so the user must say.
        case missingUnit
        /// More seconds than an Int64 holds.
        case tooLong
        case invalid
    }

    /// Parses what `format` writes and what a person types: hours, minutes and seconds, each at
    /// most once and in that order (`8h`, `1h30m`, `90m`, `45s`, `0s`; spaces between the parts are
    /// allowed). `1h1h` or `30m1h` are refused rather than guessed at; so is a bare number, except
    /// `0`, which means the same in every unit.
    static func parseDuration(_ text: String) -> ParsedDuration {
        let units: [(symbol: UInt8, seconds: Int64)] = [(UInt8(ascii: "h"), 3600), (UInt8(ascii: "m"), 60), (UInt8(ascii: "s"), 1)]
        let bytes = Array(text.utf8)
        var index = 0
        var nextUnit = 0
        var total: Int64 = 0
        var parts = 0
        func skipSpaces() { while index < bytes.count && bytes[index] == UInt8(ascii: " ") { index += 1 } }
        skipSpaces()
        while index < bytes.count {
            var value: Int64 = 0
            var digits = 0
            var overflow = false
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                let (times10, o1) = value.multipliedReportingOverflow(by: 10)
                let (sum, o2) = times10.addingReportingOverflow(Int64(bytes[index] - UInt8(ascii: "0")))
                overflow = overflow || o1 || o2
                value = sum
                digits += 1
                index += 1
            }
            guard digits > 0 else { return .invalid }
            skipSpaces()
            guard index < bytes.count else {
                // Digits with nothing after them.
                if parts > 0 { return .invalid }
                if overflow { return .tooLong }
                return value == 0 ? .seconds(0) : .missingUnit
            }
            guard let unit = units.indices.first(where: { units[$0].symbol == bytes[index] }), unit >= nextUnit else { return .invalid }
            index += 1
            nextUnit = unit + 1
            parts += 1
            let (seconds, o3) = value.multipliedReportingOverflow(by: units[unit].seconds)
            let (sum, o4) = total.addingReportingOverflow(seconds)
            if overflow || o3 || o4 { return .tooLong }
            total = sum
            skipSpaces()
        }
        return parts > 0 ? .seconds(total) : .invalid
    }

    public static func format(_ duration: Duration) -> String {
        var seconds = duration.components.seconds
        if seconds == 0 { return "0s" }
        var text = ""
        if seconds >= 3600 {
            text += "\(seconds / 3600)h"
            seconds %= 3600
        }
        if seconds >= 60 {
            text += "\(seconds / 60)m"
            seconds %= 60
        }
        if seconds > 0 { text += "\(seconds)s" }
        return text
    }
}

extension SecuritySetting {
    public var help: String {
        switch self {
        case .cacheExpiry: "how long a passcode unlock lets a finger unlock (1m to 48h)"
        case .reuseWindow: "after an unlock, no touch is needed again for this long (0 to 5m)"
        case .maxTries: "touches per unlock before asking for the passcode (1 to 10)"
        case .scanTimeout: "how long a scan waits for a finger (5s to 2m)"
        case .clipClear: "how long notes show --clip leaves a note on the clipboard (2s to 10m)"
        case .historyLimit: "earlier revisions kept per note (0 to 100)"
        case .trashKeep: "how long notes rm keeps a note in the trash (1h to 8760h)"
        }
    }
}
