public import Crypto
public import FoundationEssentials
public import SafeFiles
import Synchronization

/// A key cache in process memory with expiry on an injected clock: for tests and for a system
/// service that keeps keys in its own memory.
///
/// Each key is kept in a `LockedBuffer` of its own (mlocked, out of core dumps, zeroed when it is
/// forgotten, replaced or expires and its entry goes). `load` hands out a `SymmetricKey` copy, which
/// swift-crypto keeps on the ordinary heap and zeroes when it is released: only the cached copy,
/// the one that lives for hours, is locked.
public final class InMemoryKeyCache: KeyCache {
    private struct Entry {
        var key: LockedBuffer
        var expires: Date
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let now: @Sendable () -> Date
    private let unavailable: String?
    private let memory: LockedMemory

    /// `memory` makes the locked buffers and says once if they cannot be locked (fingerlockd hands
    /// in one that logs it; tests that do not look need none).
    public init(
        now: @escaping @Sendable () -> Date, unavailableReason: String? = nil,
        memory: LockedMemory = LockedMemory(warning: { _ in })
    ) {
        self.now = now
        self.unavailable = unavailableReason
        self.memory = memory
    }

    public func unavailableReason() -> String? { unavailable }

    public func store(_ key: SymmetricKey, name: String, lifetime: Duration) throws(KeyCacheError) {
        if let unavailable { throw KeyCacheError(unavailable) }
        let seconds = Double(lifetime.components.seconds) + Double(lifetime.components.attoseconds) / 1e18
        guard let locked = key.withUnsafeBytes({ memory.buffer(copying: $0) }) else {
            throw KeyCacheError("There is no memory left to keep the key.")
        }
        // The entry it replaces (if any) is released, and its buffer zeroed, outside the lock.
        let replaced = entries.withLock { $0.updateValue(Entry(key: locked, expires: now().addingTimeInterval(seconds)), forKey: name) }
        withExtendedLifetime(replaced) {}
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
            return entry.key.withUnsafeBytes { SymmetricKey(data: $0) }
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
