internal import CKeyutils

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

/// Does what fingerlock's key cache does, with a throwaway key: add a `user` key to the user
/// keyring `@u`, read it back, and invalidate it (`lock` relies on keyctl_invalidate).
public struct KernelKeyringProbe: KeyringProbe {
    public init() {}

    public func probe() -> KeyringStatus {
        let description = "fingerlock:doctor-probe:\(getpid())"
        let payload = Array("fingerlock doctor probe".utf8)
        let serial = payload.withUnsafeBytes { bytes in
            add_key("user", description, bytes.baseAddress, bytes.count, KEY_SPEC_USER_KEYRING)
        }
        guard serial > 0 else { return .unusable("add_key: \(Self.lastError())") }
        var buffer = [UInt8](repeating: 0, count: payload.count + 16)
        let read = buffer.withUnsafeMutableBytes { keyctl_read(serial, $0.baseAddress, $0.count) }
        let readError = read < 0 ? Self.lastError() : nil
        // Invalidate before judging the read, so the probe never leaves its key behind.
        let invalidated = keyctl_invalidate(serial)
        let invalidateError = invalidated < 0 ? Self.lastError() : nil
        if invalidated < 0 { _ = keyctl_unlink(serial, KEY_SPEC_USER_KEYRING) }
        if let readError {
            // The usual cause of a key that can be added but not read back: the session keyring
            // links @u into reach, and it was revoked.
            if keyctl_get_keyring_ID(KEY_SPEC_SESSION_KEYRING, 0) < 0 && errno == EKEYREVOKED { return .sessionKeyringRevoked }
            return .unusable("keyctl_read: \(readError)")
        }
        guard Int(read) == payload.count, Array(buffer.prefix(payload.count)) == payload else {
            return .unusable("keyctl_read returned different bytes than were stored")
        }
        if let invalidateError { return .unusable("keyctl_invalidate: \(invalidateError)") }
        return .usable
    }

    private static func lastError() -> String { String(cString: strerror(errno)) }
}
