public import Crypto
public import Foundation
import Synchronization

/// A key cache in process memory with expiry on an injected clock: for tests and for a system
/// service that keeps keys in its own memory.
public final class InMemoryKeyCache: KeyCache {
    private struct Entry {
        var key: SymmetricKey
        var expires: Date
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let now: @Sendable () -> Date
    private let unavailable: String?

    public init(now: @escaping @Sendable () -> Date, unavailableReason: String? = nil) {
        self.now = now
        self.unavailable = unavailableReason
    }

    public func unavailableReason() -> String? { unavailable }

    public func store(_ key: SymmetricKey, name: String, lifetime: Duration) throws(KeyCacheError) {
        if let unavailable { throw KeyCacheError(unavailable) }
        let seconds = Double(lifetime.components.seconds) + Double(lifetime.components.attoseconds) / 1e18
        entries.withLock { $0[name] = Entry(key: key, expires: now().addingTimeInterval(seconds)) }
    }

    public func load(name: String) throws(KeyCacheError) -> SymmetricKey? {
        if let unavailable { throw KeyCacheError(unavailable) }
        let now = now()
        return entries.withLock { entries in
            guard let entry = entries[name] else { return nil }
            guard entry.expires > now else {
                entries[name] = nil
                return nil
            }
            return entry.key
        }
    }

    @discardableResult
    public func invalidate(name: String) throws(KeyCacheError) -> Bool {
        entries.withLock { $0.removeValue(forKey: name) != nil }
    }

    public func remainingLifetime(name: String) -> Duration? {
        let now = now()
        guard let expires = entries.withLock({ $0[name]?.expires }), expires > now else { return nil }
        return .seconds(expires.timeIntervalSince(now).rounded(.down))
    }

    @discardableResult
    public func invalidateAll(withPrefix prefix: String) throws(KeyCacheError) -> Int {
        let now = now()
        return entries.withLock { entries in
            let names = entries.keys.filter { $0.hasPrefix(prefix) }
            // Only keys still alive count as forgotten; expired ones go too.
            let alive = names.filter { entries[$0]!.expires > now }.count
            for name in names { entries.removeValue(forKey: name) }
            return alive
        }
    }

    public func invalidateAll() throws(KeyCacheError) -> Int {
        entries.withLock { entries in
            defer { entries.removeAll() }
            return entries.count
        }
    }
}
