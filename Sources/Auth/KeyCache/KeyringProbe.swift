import AuthCore
internal import CKeyutils
import Crypto

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Whether the kernel keyring can hold fingerlock's cached key.
public enum KeyringStatus: Equatable, Sendable {
    case usable
    /// What failed, e.g. "add_key: Operation not permitted".
    case unusable(String)
    /// This process's session keyring was revoked (pam_keyinit's `revoke` when a `runuser` or `su`
    /// session that started it ended, e.g. under tmux): keys added to `@u` are out of its reach.
    case sessionKeyringRevoked
}

/// Checks the kernel keyring. The real one touches the kernel; tests can inject an outcome.
public protocol KeyringProbe: Sendable {
    func probe() -> KeyringStatus
}

/// Does what fingerlock's key cache does, with a throwaway key and the cache itself
/// (`KernelKeyringCache`: built in the process keyring, readable by the user, linked into `@u`),
/// then reads it back and invalidates it (`lock` relies on keyctl_invalidate). A probe of its own
/// (a key added to `@u` directly, readable only by a possessor) failed in sessions whose keyring
/// does not link `@u`, where the cache works.
public struct KernelKeyringProbe: KeyringProbe {
    public init() {}

    public func probe() -> KeyringStatus {
        let cache = KernelKeyringCache(prefix: "fingerlock-doctor-probe", namespace: "p\(getpid())")
        let key = SymmetricKey(size: .bits256)
        do {
            try cache.store(key, name: "probe", lifetime: .seconds(30))
        } catch {
            return .unusable(error.message)
        }
        let loaded: SymmetricKey?
        let readError: String?
        do {
            loaded = try cache.load(name: "probe")
            readError = nil
        } catch {
            loaded = nil
            readError = error.message
        }
        // Invalidated before the read is judged, so the probe never leaves its key behind.
        let invalidateError: String?
        do {
            invalidateError = try cache.invalidate(name: "probe") ? nil : "the probe's key was not found to invalidate"
        } catch {
            invalidateError = error.message
        }
        if let readError {
            // The usual cause of a key that can be added but not read back: the session keyring
            // links @u into reach, and it was revoked.
            if keyctl_get_keyring_ID(KEY_SPEC_SESSION_KEYRING, 0) < 0 && errno == EKEYREVOKED { return .sessionKeyringRevoked }
            return .unusable(readError)
        }
        guard loaded == key else {
            if keyctl_get_keyring_ID(KEY_SPEC_SESSION_KEYRING, 0) < 0 && errno == EKEYREVOKED { return .sessionKeyringRevoked }
            return .unusable("the key read back is not the one stored")
        }
        if let invalidateError { return .unusable(invalidateError) }
        return .usable
    }
}
