import Crypto

extension KeyCache {
    /// Shortens the life of the entry under `name` to at most `limit` (never lengthens it; 0 removes
    /// it); returns what is left. The cache-expiry rule: a shorter setting applies at once to a key
    /// already cached, a longer one from the next passcode unlock.
    @discardableResult
    public func limitLifetime(name: String, to limit: Duration) throws(KeyCacheError) -> Duration {
        guard let key = try load(name: name), let remaining = remainingLifetime(name: name) else { return .zero }
        guard limit < remaining else { return remaining }
        if limit <= .zero {
            _ = try invalidate(name: name)
            return .zero
        }
        try store(key, name: name, lifetime: limit)
        return limit
    }
}
