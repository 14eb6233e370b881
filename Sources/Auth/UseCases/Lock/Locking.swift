import AuthCore
import Fingerprint
import Foundation
import Vault

/// `lock` and `unlock`: forgetting every cached key, or caching one now.
public struct Locking: Sendable {
    let environment: AuthEnvironment
    /// The vault's custody, held by the environment for the command.
    var custody: any KeyCustody { environment.custody }

    public init(_ environment: AuthEnvironment) { self.environment = environment }

    /// What `lock` did: how many cached keys were forgotten.
    public struct LockOutcome: Equatable, Sendable {
        public var forgotten: Int
        /// Why nothing could have been cached, when the keyring is not usable at all.
        public var cacheUnavailable: String?
    }

    /// Forgets every fingerlock key this user has cached — of this vault, another data directory,
    /// or a vault since restored or rekeyed, moved or damaged — without opening any vault: those in
    /// the key cache (user mode), found by name, and those fingerlockd holds for any vault of the
    /// user's (system mode). Never reports success while one remains: a key that cannot be removed
    /// throws.
    public func lock() throws -> LockOutcome {
        var forgotten = 0
        let cache = environment.dependencies.keyCache
        let cacheUnavailable = cache.unavailableReason()
        if cacheUnavailable == nil {
            do {
                forgotten += try cache.invalidateAll()
                // The windows end with the keys; they are no keys, so they are not counted.
                _ = try environment.dependencies.reuseMarkers.invalidateAll()
            } catch {
                throw AuthError(.dataError, error.message + " The vault may still open with a touch; try `keyctl clear @u`.")
            }
        }
        do {
            if try environment.systemService.lock(vault: nil) { forgotten += 1 }
        } catch let error as SystemServiceError {
            // A service that cannot be reached holds no key (it keeps them in its memory only):
            // nothing to forget there, unless this vault's key is kept there (no keyring of its
            // own here), which is then worth saying; any other failure is said.
            guard case .unreachable = error.code, custody.keyring != nil else { throw AuthError.from(systemService: error) }
        }
        let unavailable = forgotten > 0 ? nil : custody.keyring?.unavailableReason()
        return LockOutcome(forgotten: forgotten, cacheUnavailable: unavailable)
    }

    /// What `unlock` did: whether the key is now cached, and for how long.
    public struct UnlockOutcome: Sendable {
        public var cachedFor: Duration?
        /// Why the key is not cached (no usable keyring).
        public var notCachedBecause: String?
    }

    /// Asks for the passcode now and caches the key, so a finger unlocks from now on.
    public func unlock() async throws -> UnlockOutcome {
        let vault = try await PasscodeUnlock(environment).unlockWithPasscode(reason: "unlock")
        defer { vault.close() }
        if let reason = custody.keyring?.unavailableReason() {
            return UnlockOutcome(cachedFor: nil, notCachedBecause: reason)
        }
        let settings = try AuthError.mapped { try SecuritySettings(vault: vault) }
        return UnlockOutcome(cachedFor: settings.cacheExpiry, notCachedBecause: nil)
    }
}
