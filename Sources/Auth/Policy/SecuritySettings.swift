public import Vault

/// The security settings, stored sealed in the vault so nobody can loosen them without unlocking it.
public struct SecuritySettings: Equatable, Sendable {
    /// How long a passcode unlock keeps the key cached for fingerprint unlocks (default 8 h, at most 48 h).
    public var cacheExpiry: Duration = .seconds(8 * 3600)
    /// After a successful unlock, further unlocks within this window need no touch (default 0, at most 5 min).
    public var reuseWindow: Duration = .zero
    /// Touches per evaluation before falling back to the passcode (default 3).
    public var maxTries = 3
    /// How long a scan waits for a finger (default 30 s).
    public var scanTimeout: Duration = .seconds(30)

    public init() {}

    /// The keys `config get|set` accepts, with their bounds.
    public enum Key: String, CaseIterable, Sendable {
        case cacheExpiry = "cache-expiry"
        case reuseWindow = "reuse-window"
        case maxTries = "max-tries"
        case scanTimeout = "scan-timeout"

        var isDuration: Bool { self != .maxTries }

        /// Allowed values, in seconds (or tries).
        var range: ClosedRange<Int64> {
            switch self {
            case .cacheExpiry: 60...(48 * 3600)
            case .reuseWindow: 0...300
            case .maxTries: 1...10
            case .scanTimeout: 5...120
            }
        }

        public var help: String {
            switch self {
            case .cacheExpiry: "how long a passcode unlock lets a finger unlock (1m to 48h)"
            case .reuseWindow: "after an unlock, no touch is needed again for this long (0 to 5m)"
            case .maxTries: "touches per unlock before asking for the passcode (1 to 10)"
            case .scanTimeout: "how long a scan waits for a finger (5s to 2m)"
            }
        }
    }

    public func value(_ key: Key) -> String {
        switch key {
        case .cacheExpiry: Self.format(cacheExpiry)
        case .reuseWindow: Self.format(reuseWindow)
        case .maxTries: String(maxTries)
        case .scanTimeout: Self.format(scanTimeout)
        }
    }

    /// Sets `key` from user text ("8h", "90m", "30s", "45" seconds; a whole number for max-tries).
    public mutating func set(_ key: Key, to text: String) throws(AuthError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard let amount = key.isDuration ? Self.parseSeconds(trimmed) : Int64(trimmed) else {
            throw AuthError(.invalidInput, "\(key.rawValue): '\(text)' is not \(key.isDuration ? "a duration such as 8h, 30m or 45s" : "a whole number").")
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

    static func parseSeconds(_ text: String) -> Int64? {
        var total: Int64 = 0
        var number = ""
        var sawUnit = false
        for character in text where character != " " {
            if character.isNumber {
                number.append(character)
                continue
            }
            guard let value = Int64(number) else { return nil }
            let unit: Int64
            switch character {
            case "h": unit = 3600
            case "m": unit = 60
            case "s": unit = 1
            default: return nil
            }
            total += value * unit
            number = ""
            sawUnit = true
        }
        if !number.isEmpty {
            guard let value = Int64(number), !sawUnit else { return nil }
            total += value
        } else if !sawUnit {
            return nil
        }
        return total
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

import Foundation
