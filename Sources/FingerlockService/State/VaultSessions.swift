import AuthCore
import Crypto
import FoundationEssentials
import Synchronization

/// fingerlockd's memory of the vaults it holds open: each vault's cached key, its reuse window and
/// whether an expiry timer watches the key, behind one lock. A compound change (a key kept and its
/// reuse window opened; a key forgotten and its window closed; the window checked and the key read)
/// is one step, so no request sees a vault half changed: a key released within a window that a
/// concurrent `lock` already closed, or a window left open for a key just forgotten.
///
/// The keys live in the injected `KeyCache` (its own entries zeroed and locked in memory), the
/// window markers in a cache of their own (memory only, like the keys, apart from them so that
/// forgetting keys counts keys only); both are reached only through this type, under its lock.
final class VaultSessions: Sendable {
    private let keys: any KeyCache
    private let reuse: ReuseWindow
    /// Cache names with an expiry timer running. Guards `keys` and `reuse` too: every method below
    /// runs under this lock from its first read to its last write.
    private let timers = Mutex<Set<String>>([])

    init(keys: any KeyCache, now: @escaping @Sendable () -> Date) {
        self.keys = keys
        reuse = ReuseWindow(markers: InMemoryKeyCache(now: now), suffix: "", now: now)
    }

    /// Keeps `key` for `lifetime` and opens the vault's reuse window. Returns whether an expiry
    /// timer must be started for it (none runs yet).
    func keep(_ key: SymmetricKey, name: String, lifetime: Duration) throws(KeyCacheError) -> Bool {
        try timers.withLock { running throws(KeyCacheError) -> Bool in
            try keys.store(key, name: name, lifetime: lifetime)
            reuse.open(for: name)
            return running.insert(name).inserted
        }
    }

    /// The key held for `name` (an expired one is dropped, never returned).
    func key(name: String) throws(KeyCacheError) -> SymmetricKey? {
        try timers.withLock { _ throws(KeyCacheError) in try keys.load(name: name) }
    }

    /// The key after a matching touch, and the reuse window opened by it; nil when none is held
    /// (locked, expired or forgotten while the finger was on the reader).
    func keyAfterTouch(name: String) throws(KeyCacheError) -> SymmetricKey? {
        try timers.withLock { _ throws(KeyCacheError) -> SymmetricKey? in
            guard let key = try keys.load(name: name) else { return nil }
            reuse.open(for: name)
            return key
        }
    }

    /// The key, when the reuse window of `window` is still open for it; nil otherwise.
    func keyWithinReuseWindow(name: String, window: Duration) throws(KeyCacheError) -> SymmetricKey? {
        try timers.withLock { _ throws(KeyCacheError) -> SymmetricKey? in
            guard reuse.isOpen(for: name, window: window) else { return nil }
            return try keys.load(name: name)
        }
    }

    /// What `status` tells: the key's time left (nil: none held) and the window's (nil: none open).
    func state(name: String, window: Duration) -> (keyLeft: Duration?, reuseLeft: Duration?) {
        timers.withLock { _ in
            // load() drops an expired entry, so an expired key is never reported (nor kept).
            guard (try? keys.load(name: name)) != nil else { return (nil, nil) }
            return (keys.remainingLifetime(name: name) ?? .zero, reuse.left(for: name, window: window))
        }
    }

    /// Shortens the key's life to at most `limit` (never lengthens it); returns what is left.
    func limitLifetime(name: String, to limit: Duration) throws(KeyCacheError) -> Duration {
        try timers.withLock { _ throws(KeyCacheError) in try keys.limitLifetime(name: name, to: limit) }
    }

    /// Forgets the key and closes the window; returns whether a key was held.
    func forget(name: String) throws(KeyCacheError) -> Bool {
        try timers.withLock { _ throws(KeyCacheError) -> Bool in
            reuse.close(for: name)
            return try keys.invalidate(name: name)
        }
    }

    /// The same for every vault whose name starts with `prefix` (one user's); returns how many keys.
    func forgetAll(withPrefix prefix: String) throws(KeyCacheError) -> Int {
        try timers.withLock { _ throws(KeyCacheError) -> Int in
            reuse.closeAll(withPrefix: prefix)
            return try keys.invalidateAll(withPrefix: prefix)
        }
    }

    /// Every vault's (graceful shutdown); returns how many keys.
    func forgetAll() -> Int {
        timers.withLock { _ in
            reuse.closeAll(withPrefix: "")
            return (try? keys.invalidateAll()) ?? 0
        }
    }

    // MARK: The expiry timer's steps

    /// The cache names an expiry timer watches now.
    var namesWithExpiryTimer: Set<String> { timers.withLock { $0 } }

    /// The key's time left, for the timer to sleep; nil when none is (or none unexpired).
    func remainingLifetime(name: String) -> Duration? {
        timers.withLock { _ in keys.remainingLifetime(name: name) }
    }

    /// Drops the key if it expired (zeroing it), and ends the timer when no key is left; a key kept
    /// again meanwhile keeps the timer running (checked under the lock a `keep` takes).
    func expire(name: String) -> Bool {
        timers.withLock { running in
            _ = try? keys.load(name: name)
            guard keys.remainingLifetime(name: name) == nil else { return false }
            running.remove(name)
            return true
        }
    }
}
