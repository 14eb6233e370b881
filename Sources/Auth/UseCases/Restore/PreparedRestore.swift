import Foundation
import Synchronization
import Vault

/// A restore that is ready: its plan, then `commit()` or `cancel()`.
public final class PreparedRestore: Sendable {
    public let plan: RestorePlan
    private let staged: StagedRestore
    private let current: Vault?
    private let environment: AuthEnvironment

    init(plan: RestorePlan, staged: StagedRestore, current: Vault?, environment: AuthEnvironment) {
        self.plan = plan
        self.staged = staged
        self.current = current
        self.environment = environment
    }

    /// Replaces the vault with the backup, forgets every cached key (the old vault's included) and
    /// caches the restored one. Returns the number of notes restored.
    public func commit() throws -> Int {
        defer { cancel() }
        let restored = try AuthError.mapped { try staged.commit() }
        defer { restored.close() }
        // The backup may bring the other mode back.
        environment.forgetRecordedHeader()
        _ = try? Locking(environment).lock()
        try environment.cacheKey(of: restored)
        return try AuthError.mapped { try restored.noteCount() }
    }

    /// Leaves everything as it was and removes the staged copy.
    public func cancel() {
        staged.discard()
        current?.close()
    }
}
