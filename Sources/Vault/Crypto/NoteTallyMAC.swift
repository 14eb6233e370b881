internal import CBoringSSLShim
import Crypto

/// `TallyHasher.note`, the same bytes and the same HMAC-SHA256, through one BoringSSL HMAC context
/// that each scan worker keeps for its rows: swift-crypto's HMAC copies two Swift-managed hash
/// states and allocates for every message, which cost a full scan more than the two SHA-256
/// blocks of the hash itself.
///
/// Not Sendable: a context is one thread's at a time; every worker makes its own.
final class NoteTallyMAC {
    private let context: UnsafeMutableRawPointer

    init(key: SymmetricKey) {
        guard let made = CCryptoBoringSSL_HMAC_CTX_new() else { fatalError("HMAC context: out of memory") }
        let keyed = key.withUnsafeBytes { raw in
            CCryptoBoringSSL_HMAC_Init_ex(made, raw.baseAddress, raw.count, CCryptoBoringSSL_EVP_sha256(), nil)
        }
        // Fails only when memory runs out.
        guard keyed == 1 else { fatalError("HMAC-SHA256: BoringSSL refused the tally key") }
        context = made
    }

    deinit { CCryptoBoringSSL_HMAC_CTX_free(context) }

    /// H(note, id, revision): kind byte, id length (u32, little-endian) and bytes, revision (u64, little-endian).
    func note(_ id: String, revision: UInt64) -> Tally.Element {
        var id = id
        let limbs = id.withUTF8 { note(UnsafeRawBufferPointer($0), revision: revision) }
        return [limbs.0, limbs.1, limbs.2, limbs.3]
    }

    /// The same, from the stored id's UTF-8 bytes, as limbs.
    func note(_ id: UnsafeRawBufferPointer, revision: UInt64) -> Tally.Limbs {
        withUnsafeTemporaryAllocation(byteCount: 13 + id.count, alignment: 8) { message in
            message[0] = TallyKind.note.rawValue
            message.storeBytes(of: UInt32(id.count).littleEndian, toByteOffset: 1, as: UInt32.self)
            UnsafeMutableRawBufferPointer(rebasing: message[5..<(5 + id.count)]).copyMemory(from: id)
            message.storeBytes(of: revision.littleEndian, toByteOffset: 5 + id.count, as: UInt64.self)
            return mac(UnsafeRawBufferPointer(message))
        }
    }

    private func mac(_ message: UnsafeRawBufferPointer) -> Tally.Limbs {
        let raw = context
        var code: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        var length: UInt32 = 0
        // Rewind to the keyed state (no key, same digest), then hash the message.
        let status = withUnsafeMutableBytes(of: &code) { out in
            CCryptoBoringSSL_HMAC_Init_ex(raw, nil, 0, nil, nil) == 1
                && CCryptoBoringSSL_HMAC_Update(raw, message.baseAddress?.assumingMemoryBound(to: UInt8.self), message.count) == 1
                && CCryptoBoringSSL_HMAC_Final(raw, out.baseAddress?.assumingMemoryBound(to: UInt8.self), &length) == 1
        }
        guard status, length == 32 else { fatalError("HMAC-SHA256 failed") }
        return (UInt64(littleEndian: code.0), UInt64(littleEndian: code.1), UInt64(littleEndian: code.2), UInt64(littleEndian: code.3))
    }
}
