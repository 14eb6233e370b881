public import Foundation

/// The collaborators and limits a vault works with, injected so tests control them.
public struct VaultConfiguration: Sendable {
    /// How long a writer waits for another process holding the vault before giving up as busy.
    public var lockTimeout: Duration
    /// The clock stamping notes' created/modified dates.
    public var now: @Sendable () -> Date
    /// SQLite page size for newly created vaults; tests shrink it to keep byte-flip sweeps small.
    package var pageSize: Int?

    public init(lockTimeout: Duration = .seconds(30), now: @escaping @Sendable () -> Date = { Date() }) {
        self.lockTimeout = lockTimeout
        self.now = now
        self.pageSize = nil
    }
}
