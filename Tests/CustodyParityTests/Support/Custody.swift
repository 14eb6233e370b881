/// Who keeps the key, the counters and the fingers: the two modes every parity scenario runs in.
enum Custody: String, CaseIterable, Sendable, CustomStringConvertible {
    /// User mode: the kernel keyring (here a key cache in memory), the user's attempt file, the
    /// reader in the CLI's own process.
    case user
    /// System mode: fingerlockd, in process, over its real Varlink socket, with its own state
    /// directory, key cache and reader.
    case system

    var description: String { rawValue + " mode" }
}
