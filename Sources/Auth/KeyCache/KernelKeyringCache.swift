public import AuthCore
internal import CKeyutils
public import Crypto
public import Foundation

/// Keys in the kernel's per-user keyring (`@u`): never on disk, gone at reboot, expiring on the
/// kernel's own timer. Any process of the same user can read them — the user-mode limit the
/// threat model states.
public struct KernelKeyringCache: KeyCache {
    /// Prefix of every description, so `keyctl show @u` says whose keys these are.
    public let prefix: String
    /// An optional namespace inside the prefix (`FINGERLOCK_KEYRING_NAMESPACE`), so separate
    /// installations — parallel test runs — keep and lock their keys apart. `lock` without one
    /// forgets every fingerlock key, namespaced or not.
    public let namespace: String?
    /// The wall clock an entry's expiry is written and read with.
    let now: @Sendable () -> Date

    /// `namespace` is used only when it is made of letters, digits, `-` and `_`.
    public init(prefix: String = "fingerlock", namespace: String? = nil, now: @escaping @Sendable () -> Date = Date.init) {
        self.prefix = prefix
        self.now = now
        let allowed = namespace.map {
            !$0.isEmpty && $0.utf8.count <= 64 && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
        }
        self.namespace = allowed == true ? namespace : nil
    }

    /// What every description of this cache starts with.
    private var scope: String { prefix + ":" + (namespace.map { $0 + ":" } ?? "") }

    public func unavailableReason() -> String? {
        // Resolving @u (without creating anything) fails where keyrings are disabled or filtered.
        if keyctl_get_keyring_ID(KEY_SPEC_USER_KEYRING, 0) < 0 {
            return
                "The kernel keyring is not usable here (\(String(cString: strerror(errno)))), so a fingerprint cannot unlock the vault; the passcode is needed each time."
        }
        return nil
    }

    public func store(_ key: SymmetricKey, name: String, lifetime: Duration) throws(KeyCacheError) {
        let description = scope + name
        let seconds = UInt32(clamping: max(1, lifetime.components.seconds))
        // The key, then when it expires (the kernel tells a key's time left only to its unit).
        var payload = key.withUnsafeBytes { Array($0) }
        defer { payload.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) } }
        payload += ExpiryTrailer(expires: Int64(now().timeIntervalSince1970) + Int64(seconds)).bytes
        // Built in the process keyring, which dies with this process, and linked into @u only once
        // its permissions and expiry are set: a kill halfway never leaves a key cached until reboot.
        let serial: Int32 = payload.withUnsafeBytes { bytes in
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
        try withPayload(name: name) { payload in
            SymmetricKey(data: UnsafeRawBufferPointer(rebasing: payload[..<ExpiryTrailer.keyLength(of: payload)]))
        }
    }

    /// Runs `body` on the entry's payload (the key and its expiry trailer), wiped afterwards; nil
    /// when there is no such entry.
    private func withPayload<T>(name: String, _ body: (UnsafeRawBufferPointer) -> T) throws(KeyCacheError) -> T? {
        let serial = keyctl_search(KEY_SPEC_USER_KEYRING, "user", scope + name, 0)
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
        return body(UnsafeRawBufferPointer(start: buffer, count: Int(length)))
    }

    @discardableResult
    public func invalidate(name: String) throws(KeyCacheError) -> Bool {
        let serial = keyctl_search(KEY_SPEC_USER_KEYRING, "user", scope + name, 0)
        guard serial >= 0 else { return false }
        guard keyctl_invalidate(Int32(serial)) == 0 else {
            if errno == ENOKEY || errno == EKEYEXPIRED { return false }
            throw failure("forget a key in")
        }
        return true
    }

    /// The key's expiry as `/proc/keys` shows it: the kernel offers no call that returns a key's
    /// timeout, and that file rounds the time left down to its unit (`45s`, `59m`, `7h`, `2d`, `3w`).
    public func remainingLifetime(name: String) -> Duration? {
        // The expiry this cache wrote with the key, to the second.
        if let expires = (try? withPayload(name: name) { ExpiryTrailer(payload: $0)?.expires }) ?? nil {
            return .seconds(max(0, expires - Int64(now().timeIntervalSince1970)))
        }
        // A key cached before the trailer: what /proc/keys shows.
        let serial = keyctl_search(KEY_SPEC_USER_KEYRING, "user", scope + name, 0)
        // One line per key this user may view: a megabyte is thousands of keys.
        guard serial >= 0, let table = SmallFile.text("/proc/keys", limit: 1 << 20) else { return nil }
        let id = String(format: "%08x", UInt32(bitPattern: Int32(truncatingIfNeeded: serial)))
        for line in table.split(separator: "\n") {
            // "SERIAL FLAGS USAGE EXPIRY PERM UID GID TYPE DESCRIPTION: SUMMARY"
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count > 3, fields[0] == id else { continue }
            return Self.duration(proc: fields[3])
        }
        return nil
    }

    /// `7h` → 7 hours; nil for `perm` (no expiry), `expd` or anything unknown.
    static func duration(proc text: Substring) -> Duration? {
        guard let unit = text.last, let count = Int64(text.dropLast()) else { return nil }
        let seconds: Int64? =
            switch unit {
            case "s": 1
            case "m": 60
            case "h": 3600
            case "d": 86400
            case "w": 604_800
            default: nil
            }
        return seconds.map { .seconds(count * $0) }
    }

    /// Every `user` key in `@u` whose description starts with the prefix: found by description, so
    /// keys of vaults that no longer exist, of another data directory or of a restored vault's old
    /// store id are found too.
    @discardableResult
    public func invalidateAll() throws(KeyCacheError) -> Int {
        var removed = 0
        for serial in try ownKeys() {
            if keyctl_invalidate(serial) == 0 {
                removed += 1
            } else if ![ENOKEY, EKEYEXPIRED, EKEYREVOKED].contains(errno) {
                throw failure("forget a key in")
            }
        }
        let left = try ownKeys()
        guard left.isEmpty else {
            throw KeyCacheError("\(left.count) fingerlock key(s) are still in the kernel keyring after invalidating them.")
        }
        return removed
    }

    /// The serials of fingerlock's keys linked into the user keyring.
    private func ownKeys() throws(KeyCacheError) -> [Int32] {
        var buffer: UnsafeMutableRawPointer?
        let length = keyctl_read_alloc(KEY_SPEC_USER_KEYRING, &buffer)
        guard length >= 0, let buffer else {
            if errno == ENOKEY { return [] }
            throw failure("list the keys of")
        }
        defer { free(buffer) }
        let count = Int(length) / MemoryLayout<Int32>.size
        let serials = (0..<count).map { buffer.loadUnaligned(fromByteOffset: $0 * MemoryLayout<Int32>.size, as: Int32.self) }
        return serials.filter { serial in
            var description: UnsafeMutablePointer<CChar>?
            guard keyctl_describe_alloc(serial, &description) >= 0, let description else { return false }
            defer { free(description) }
            // "type;uid;gid;perm;description"
            let fields = String(cString: description).split(separator: ";", maxSplits: 4, omittingEmptySubsequences: false)
            return fields.count == 5 && fields[0] == "user" && fields[4].hasPrefix(scope)
                && fields[1] == Substring(String(getuid()))
        }
    }

    private func failure(_ action: String) -> KeyCacheError {
        KeyCacheError("Could not \(action) the kernel keyring: \(String(cString: strerror(errno))).")
    }
}

/// When a cached entry expires, after its key in the payload: 8 bytes of Unix time (big-endian),
/// then the 4 bytes `FLex`, so an entry written before it (the key alone) still reads.
struct ExpiryTrailer: Equatable {
    static let magic: [UInt8] = Array("FLex".utf8)
    static let length = 12

    var expires: Int64

    init(expires: Int64) { self.expires = expires }

    /// The trailer at the end of `payload`, or nil when it has none.
    init?(payload: UnsafeRawBufferPointer) {
        guard payload.count > Self.length, Array(payload.suffix(4)) == Self.magic else { return nil }
        expires = payload[(payload.count - Self.length)..<(payload.count - 4)].reduce(0) { $0 << 8 | Int64($1) }
    }

    var bytes: [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: expires >> (8 * (7 - $0))) } + Self.magic }

    /// How much of `payload` is the key.
    static func keyLength(of payload: UnsafeRawBufferPointer) -> Int {
        ExpiryTrailer(payload: payload) == nil ? payload.count : payload.count - length
    }
}
