import Crypto
import CryptoExtras
import Foundation

/// The scrypt parameters of a passcode slot, stored in the slot and bound into its associated data
/// (changing them changes the AD, so the unwrap fails as a wrong passcode).
struct ScryptParameters: Equatable, Sendable {
    static let floorLog2N: UInt8 = 17
    /// r is 8 in every slot fingerlock writes, calibrated or fixed.
    static let blockSize: UInt32 = 8
    /// Calibration never goes above 2^18 × r = 8 (256 MiB) of memory…
    static let calibratedMemoryCapLog2N: UInt8 = 18
    /// …and adds at most this many sequential lanes instead.
    static let maximumCalibratedLanes: UInt32 = 4

    /// The ceiling enforced on read, before any work is done, is exactly what calibration can
    /// choose (log2N ≤ 18, r = 8, p ≤ 4): a slot asking for more was not written by fingerlock.
    /// Anything higher, even if affordable, would let a forged header make every attempt slow and
    /// memory-hungry and count the right passcode as wrong.
    static let ceilingLog2N = calibratedMemoryCapLog2N
    static let ceilingLanes = maximumCalibratedLanes

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

    enum DecodeError: Error, Equatable {
        /// Not the layout fingerlock writes.
        case malformed
        /// Well-formed, but asks for more than calibration ever picks.
        case aboveCeiling
    }

    /// Parses and range-checks stored parameters: nothing malformed or above the ceiling passes.
    static func decode(_ bytes: [UInt8]) throws(DecodeError) -> ScryptParameters {
        guard let parameters = parse(bytes) else { throw .malformed }
        guard parameters.isWithinCeiling else { throw .aboveCeiling }
        return parameters
    }

    /// The layout alone, whatever the cost it asks for.
    private static func parse(_ bytes: [UInt8]) -> ScryptParameters? {
        var reader = ByteReader(bytes)
        guard reader.u8() == 1, let log2N = reader.u8(), let r = reader.u32(), let p = reader.u32(),
            let salt = reader.field(), reader.isAtEnd, salt.count == 32, log2N >= 1, p >= 1
        else { return nil }
        return ScryptParameters(log2N: log2N, r: r, p: p, salt: Array(salt))
    }

    /// `bytes` with each cost fingerlock can write (every log2N up to the ceiling, r = 8, every p
    /// up to the ceiling) in place of the stored one, same salt: the candidates for what a slot
    /// whose cost fields were forged held before. 72 of them; none if the layout is damaged.
    static func writableCosts(replacing bytes: [UInt8]) -> [[UInt8]] {
        guard let stored = parse(bytes) else { return [] }
        var candidates: [[UInt8]] = []
        for log2N in 1...ceilingLog2N {
            for p in 1...ceilingLanes {
                candidates.append(ScryptParameters(log2N: log2N, r: blockSize, p: p, salt: stored.salt).encoded)
            }
        }
        return candidates
    }

    var isWithinCeiling: Bool {
        log2N <= Self.ceilingLog2N && r == Self.blockSize && p <= Self.ceilingLanes
    }

    func deriveKey(_ passcode: [UInt8]) throws -> SymmetricKey {
        try KDF.Scrypt.deriveKey(
            from: passcode, salt: salt, outputByteCount: 32, rounds: 1 << Int(log2N), blockSize: Int(r),
            parallelism: Int(p))
    }

    /// Picks parameters for `cost` and derives the key with them, reusing the calibration run's
    /// output so creating a slot costs about one derivation more than its final cost.
    static func derive(_ passcode: [UInt8], cost: KDFCost) throws -> (ScryptParameters, SymmetricKey) {
        var parameters = ScryptParameters(log2N: floorLog2N, r: blockSize, p: 1, salt: randomBytes(32))
        switch cost.mode {
        case .fixed(let log2N, let r):
            parameters.log2N = log2N
            parameters.r = r
            // A slot this process could not open again must never be written.
            guard log2N >= 1, parameters.isWithinCeiling else {
                throw VaultError(
                    .invalidInput,
                    "KDF cost out of range: log2N must be 1...\(ceilingLog2N) and r must be \(blockSize).")
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
