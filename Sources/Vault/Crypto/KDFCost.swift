/// How expensive the passcode KDF (scrypt) is made when a passcode slot is written.
///
/// The normal choice is `.calibrated`: scrypt is timed on this machine and N raised from the floor
/// (N = 2^17, r = 8, ~128 MiB) until one derivation takes about 0.5–1 s. Nothing below the floor
/// can be asked for except through `insecureForTestsOnly`, which exists so tests can create many
/// vaults quickly and must never be reachable from the CLI.
public struct KDFCost: Sendable, Equatable {
    enum Mode: Sendable, Equatable {
        case calibrated
        case fixed(log2N: UInt8, r: UInt32)
    }

    let mode: Mode

    /// Timed on this machine: at least N = 2^17, r = 8; about 0.5–1 s per derivation.
    public static let calibrated = KDFCost(mode: .calibrated)

    /// A cheap, insecure cost for tests only. Never use it for a real vault: a passcode protected
    /// this way can be guessed quickly by anyone who copies the vault file. `r` must be 8, the only
    /// block size a slot may ask for; anything else is refused when the slot is made.
    public static func insecureForTestsOnly(log2N: Int = 10, r: Int = 8) -> KDFCost {
        KDFCost(mode: .fixed(log2N: UInt8(clamping: log2N), r: UInt32(clamping: r)))
    }
}
