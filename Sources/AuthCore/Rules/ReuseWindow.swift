import Crypto
public import FoundationEssentials

/// The reuse-window rule, hosted by both modes: after a passcode unlock or a matching touch, an
/// unlock within the vault's `reuse-window` setting needs no touch (`verify` always scans). The
/// window is measured from that unlock with the setting in force now: a shorter setting applies at
/// once, a longer one too while it still covers the unlock, and 0 ends it. Releasing a key within
/// the window does not lengthen it; a lock or a lockout ends it.
///
/// The unlock's time is kept as a marker in a key cache, expiring after the longest window the
/// setting allows: the kernel keyring in user mode, where each command is a new process; the
/// service's memory in system mode, apart from its keys (so forgetting keys counts keys only). The
/// marker holds the time of the unlock, nothing secret.
public struct ReuseWindow: Sendable {
    let markers: any KeyCache
    /// Added to a vault's cache name: user mode's markers share the keyring with its keys.
    let suffix: String
    let now: @Sendable () -> Date

    /// The longest window the setting allows; a marker outlives no window.
    public static let longest = Duration.seconds(SecuritySetting.reuseWindow.range.upperBound)

    public init(markers: any KeyCache, suffix: String = ":reuse", now: @escaping @Sendable () -> Date) {
        self.markers = markers
        self.suffix = suffix
        self.now = now
    }

    /// Starts a window for `name`: a passcode unlock or a matching touch happened now. Best effort:
    /// a window that cannot be kept only means one more touch.
    public func open(for name: String) {
        try? markers.store(Self.marker(at: now()), name: name + suffix, lifetime: Self.longest)
    }

    /// What is left of the window (nil: none open) under a setting of `window`.
    public func left(for name: String, window: Duration) -> Duration? {
        guard window > .zero, let marker = try? markers.load(name: name + suffix),
            let opened = Self.time(in: marker)
        else { return nil }
        let elapsed = now().timeIntervalSince(opened)
        // A clock set back before the unlock opens nothing.
        guard elapsed >= 0 else { return nil }
        let left = Double(window.components.seconds) - elapsed
        return left > 0 ? .milliseconds(Int64((left * 1000).rounded(.down))) : nil
    }

    /// Whether an unlock of `name` now needs no touch under a setting of `window`.
    public func isOpen(for name: String, window: Duration) -> Bool {
        left(for: name, window: window) != nil
    }

    public func close(for name: String) {
        _ = try? markers.invalidate(name: name + suffix)
    }

    /// Closes every window whose name starts with `prefix` (fingerlockd: one user's vaults).
    public func closeAll(withPrefix prefix: String) {
        _ = try? markers.invalidateAll(withPrefix: prefix)
    }

    /// The marker's bytes: the unlock's time in milliseconds since 1970 (big-endian), then zeros.
    static func marker(at date: Date) -> SymmetricKey {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        var bytes = [UInt8](repeating: 0, count: 32)
        for index in 0..<8 { bytes[index] = UInt8(truncatingIfNeeded: milliseconds >> (56 - 8 * index)) }
        return SymmetricKey(data: bytes)
    }

    static func time(in marker: SymmetricKey) -> Date? {
        marker.withUnsafeBytes { raw -> Date? in
            guard raw.count == 32 else { return nil }
            let milliseconds = raw.prefix(8).reduce(Int64(0)) { $0 << 8 | Int64($1) }
            return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        }
    }
}
