internal import CKeyutils
public import Crypto
import Foundation

/// Keys in the kernel's per-user keyring (`@u`): never on disk, gone at reboot, expiring on the
/// kernel's own timer. Any process of the same user can read them — the user-mode limit the
/// threat model states.
public struct KernelKeyringCache: KeyCache {
    /// Prefix of every description, so `keyctl show @u` says whose keys these are.
    public let prefix: String

    public init(prefix: String = "fingerlock") {
        self.prefix = prefix
    }

    public func unavailableReason() -> String? {
        // Resolving @u (without creating anything) fails where keyrings are disabled or filtered.
        if keyctl_get_keyring_ID(KEY_SPEC_USER_KEYRING, 0) < 0 {
            return "The kernel keyring is not usable here (\(String(cString: strerror(errno)))), so a fingerprint cannot unlock the vault; the passcode is needed each time."
        }
        return nil
    }

    public func store(_ key: SymmetricKey, name: String, lifetime: Duration) throws(KeyCacheError) {
        let description = "\(prefix):\(name)"
        let seconds = UInt32(clamping: max(1, lifetime.components.seconds))
        // Built in the process keyring, which dies with this process, and linked into @u only once
        // its permissions and expiry are set: a kill halfway never leaves a key cached until reboot.
        let serial: Int32 = key.withUnsafeBytes { bytes in
            add_key("user", description, bytes.baseAddress, bytes.count, KEY_SPEC_PROCESS_KEYRING)
        }
        guard serial >= 0 else { throw failure("store a key in") }
        defer { _ = keyctl_unlink(serial, KEY_SPEC_PROCESS_KEYRING) }
        // Readable by the same user from any session (possession alone would tie it to this login
        // session).
        let permissions = UInt32(KEY_POS_ALL) | UInt32(KEY_USR_VIEW) | UInt32(KEY_USR_READ) | UInt32(KEY_USR_SEARCH)
        guard keyctl_setperm(serial, permissions) == 0, keyctl_set_timeout(serial, seconds) == 0 else {
            let error = failure("configure a key in")
            _ = keyctl_invalidate(serial)
            throw error
        }
        // Linking displaces an older key of the same description in @u.
        guard keyctl_link(serial, KEY_SPEC_USER_KEYRING) == 0 else {
            let error = failure("store a key in")
            _ = keyctl_invalidate(serial)
            throw error
        }
    }

    public func load(name: String) throws(KeyCacheError) -> SymmetricKey? {
        let serial = keyctl_search(KEY_SPEC_USER_KEYRING, "user", "\(prefix):\(name)", 0)
        if serial < 0 {
            // Missing, expired, revoked or invalidated all mean "not cached".
            if [ENOKEY, EKEYEXPIRED, EKEYREVOKED, EACCES].contains(errno) { return nil }
            throw failure("read a key from")
        }
        var buffer: UnsafeMutableRawPointer?
        let length = keyctl_read_alloc(Int32(serial), &buffer)
        guard length >= 0, let buffer else {
            if [ENOKEY, EKEYEXPIRED, EKEYREVOKED, EACCES].contains(errno) { return nil }
            throw failure("read a key from")
        }
        defer {
            // Wipe our copy of the key material before handing the buffer back.
            explicit_bzero(buffer, Int(length))
            free(buffer)
        }
        return SymmetricKey(data: UnsafeRawBufferPointer(start: buffer, count: Int(length)))
    }

    @discardableResult
    public func invalidate(name: String) throws(KeyCacheError) -> Bool {
        let serial = keyctl_search(KEY_SPEC_USER_KEYRING, "user", "\(prefix):\(name)", 0)
        guard serial >= 0 else { return false }
        guard keyctl_invalidate(Int32(serial)) == 0 else {
            if errno == ENOKEY || errno == EKEYEXPIRED { return false }
            throw failure("forget a key in")
        }
        return true
    }

    private func failure(_ action: String) -> KeyCacheError {
        KeyCacheError("Could not \(action) the kernel keyring: \(String(cString: strerror(errno))).")
    }
}
