public import Crypto

/// Where an unlocked store master key waits for a fingerprint to release it: the kernel keyring in
/// user mode, a privileged service in a later system mode, memory in tests.
public protocol KeyCache: Sendable {
    /// Whether the cache can be used at all; nil when it can, else the reason it cannot.
    func unavailableReason() -> String?
    /// Stores `key` under `name`, replacing any earlier entry; it disappears after `lifetime`.
    func store(_ key: SymmetricKey, name: String, lifetime: Duration) throws(KeyCacheError)
    /// The key stored under `name`, or nil when there is none (never stored, expired, invalidated).
    func load(name: String) throws(KeyCacheError) -> SymmetricKey?
    /// Forgets the entry; returns whether there was one.
    @discardableResult
    func invalidate(name: String) throws(KeyCacheError) -> Bool
    /// Forgets every entry this cache holds for the user, whichever vault it belongs to, and checks
    /// that none is left; returns how many there were. Throws when one cannot be removed.
    @discardableResult
    func invalidateAll() throws(KeyCacheError) -> Int
    /// Forgets every entry whose name starts with `prefix` (fingerlockd: one user's vaults); returns
    /// how many there were.
    @discardableResult
    func invalidateAll(withPrefix prefix: String) throws(KeyCacheError) -> Int
    /// How long the entry under `name` has left, as far as the cache can tell; nil when there is
    /// no such entry or the cache cannot say. Tells only the time, never the key.
    func remainingLifetime(name: String) -> Duration?
}

extension KeyCache {
    /// A cache that cannot tell how long its entries live (`status` then shows no time).
    public func remainingLifetime(name: String) -> Duration? { nil }

    /// A cache that keeps one user's keys only (the kernel keyring) has no other user's to spare:
    /// it cannot forget by name prefix, and says so.
    public func invalidateAll(withPrefix prefix: String) throws(KeyCacheError) -> Int {
        throw KeyCacheError("This key cache cannot forget keys by name.")
    }
}

public struct KeyCacheError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
