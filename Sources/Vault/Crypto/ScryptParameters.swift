import Crypto
import CryptoExtras
import Foundation

/// The scrypt parameters of a passcode slot, stored in the slot and bound into its associated data
/// (changing them changes the AD, so the unwrap fails as a wrong passcode).
struct ScryptParameters: Equatable, Sendable {
    static let floorLog2N: UInt8 = 17
    static let floorR: UInt32 = 8
    /// The ceiling enforced on read, before any work is done: a forged header asking for more is
    /// refused at once instead of running for minutes or exhausting memory. 2^20 × r 8 is 1 GiB,
    /// the most calibration ever picks.
    static let ceilingLog2N: UInt8 = 20
    /// Calibration never goes above 2^18 × r = 8 (256 MiB) of memory…
    static let calibratedMemoryCapLog2N: UInt8 = 18
    /// …and adds at most this many sequential lanes instead.
    static let maximumCalibratedLanes: UInt32 = 4
    static let ceilingMemory = 1 << 30
    static let ceilingWork = (1 << 20) * 8

    var log2N: UInt8
    var r: UInt32
    var p: UInt32
    var salt: [UInt8]

    var encoded: [UInt8] {
        var writer = ByteWriter()
        writer.u8(1)
        writer.u8(log2N)
        writer.u32(r)
        writer.u32(p)
        writer.field(salt)
        return writer.bytes
    }

    /// Parses and range-checks stored parameters; nil for anything malformed or above the ceiling.
    static func decode(_ bytes: [UInt8]) -> ScryptParameters? {
        var reader = ByteReader(bytes)
        guard reader.u8() == 1, let log2N = reader.u8(), let r = reader.u32(), let p = reader.u32(),
            let salt = reader.field(), reader.isAtEnd
        else { return nil }
        let parameters = ScryptParameters(log2N: log2N, r: r, p: p, salt: Array(salt))
        return parameters.isWithinCeiling ? parameters : nil
    }

    var isWithinCeiling: Bool {
        guard log2N >= 1, log2N <= Self.ceilingLog2N, (1...16).contains(r), (1...4).contains(p), salt.count == 32 else {
            return false
        }
        let n = 1 << Int(log2N)
        return 128 * n * Int(r) <= Self.ceilingMemory && n * Int(r) * Int(p) <= Self.ceilingWork
    }

    func deriveKey(_ passcode: [UInt8]) throws -> SymmetricKey {
        try KDF.Scrypt.deriveKey(
            from: passcode, salt: salt, outputByteCount: 32, rounds: 1 << Int(log2N), blockSize: Int(r),
            parallelism: Int(p))
    }

    /// Picks parameters for `cost` and derives the key with them, reusing the calibration run's
    /// output so creating a slot costs about one derivation more than its final cost.
    static func derive(_ passcode: [UInt8], cost: KDFCost) throws -> (ScryptParameters, SymmetricKey) {
        var parameters = ScryptParameters(log2N: floorLog2N, r: floorR, p: 1, salt: randomBytes(32))
        switch cost.mode {
        case .fixed(let log2N, let r):
            parameters.log2N = log2N
            parameters.r = r
            guard parameters.isWithinCeiling else {
                throw VaultError(.invalidInput, "KDF cost above the ceiling.")
            }
            return (parameters, try parameters.deriveKey(passcode))
        case .calibrated:
            let clock = ContinuousClock()
            while true {
                let start = clock.now
                let key = try parameters.deriveKey(passcode)
                let elapsed = clock.now - start
                // Doubling N (or adding a lane) raises the time: stop once we are in (or could only
                // overshoot) the window. Past 2^18 (256 MiB) more memory buys little against a GPU
                // and costs the user dearly, so further cost comes from sequential lanes (p), which
                // take time but no more memory.
                if elapsed >= .milliseconds(500) || parameters.p >= maximumCalibratedLanes {
                    return (parameters, key)
                }
                if parameters.log2N < calibratedMemoryCapLog2N {
                    parameters.log2N += 1
                } else {
                    parameters.p += 1
                }
            }
        }
    }
}

func randomBytes(_ count: Int) -> [UInt8] {
    var generator = SystemRandomNumberGenerator()
    return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
}
