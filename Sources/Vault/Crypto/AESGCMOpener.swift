internal import CBoringSSLShim
import Crypto
import Foundation

/// Opens `Sealer` blobs (nonce ‖ ciphertext ‖ tag) under one key with one AES-256-GCM context made
/// once: swift-crypto's `AES.GCM.open` makes a new one per call (key schedule and GHASH table) and
/// copies the box apart, which in a scan of 100k notes cost more than the decryption itself.
/// Same algorithm, same format: what `Sealer.seal` sealed, this opens, and nothing else.
///
/// @unchecked Sendable: the context is immutable after init and BoringSSL's open takes it `const`,
/// so the scan's workers share one.
final class AESGCMOpener: @unchecked Sendable {
    private static let nonceSize = 12
    private static let tagSize = 16
    private static let overhead = nonceSize + tagSize
    private let context: UnsafeMutableRawPointer

    init(key: SymmetricKey) {
        let made = key.withUnsafeBytes { raw in
            CCryptoBoringSSL_EVP_AEAD_CTX_new(
                CCryptoBoringSSL_EVP_aead_aes_256_gcm(), raw.bindMemory(to: UInt8.self).baseAddress, raw.count,
                Self.tagSize)
        }
        // Fails only for a key that is not 32 bytes or when memory runs out; every key here is derived
        // with 32 bytes, so this is a programming error.
        guard let made else { fatalError("AES-256-GCM context: BoringSSL refused a \(key.bitCount)-bit key") }
        context = made
    }

    deinit { CCryptoBoringSSL_EVP_AEAD_CTX_free(context) }

    /// The plaintext, or nil when `combined` does not authenticate under this key and `ad`.
    func open(_ combined: Data, ad: [UInt8]) -> [UInt8]? {
        ad.withUnsafeBytes { open(combined, ad: $0) }
    }

    func open(_ combined: Data, ad: UnsafeRawBufferPointer) -> [UInt8]? {
        combined.withUnsafeBytes { open($0, ad: ad) }
    }

    func open(_ sealed: UnsafeRawBufferPointer, ad: UnsafeRawBufferPointer) -> [UInt8]? {
        guard sealed.count >= Self.overhead else { return nil }
        var authentic = false
        // At least one byte, so an empty plaintext still has an output address to give BoringSSL.
        let plain = [UInt8](unsafeUninitializedCapacity: max(1, sealed.count - Self.overhead)) { out, count in
            let written = open(sealed, ad: ad, into: UnsafeMutableRawBufferPointer(out))
            authentic = written != nil
            count = written ?? 0
        }
        return authentic ? plain : nil
    }

    /// Opens into `out` (at least the ciphertext's size); the plaintext's size, or nil when `sealed`
    /// does not authenticate. For callers that look at the plaintext and let it go (search).
    func open(_ sealed: UnsafeRawBufferPointer, ad: [UInt8], into out: UnsafeMutableRawBufferPointer) -> Int? {
        ad.withUnsafeBytes { open(sealed, ad: $0, into: out) }
    }

    func open(_ sealed: UnsafeRawBufferPointer, ad: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer) -> Int? {
        guard sealed.count >= Self.overhead, let base = sealed.baseAddress, let target = out.baseAddress,
            out.count >= sealed.count - Self.overhead
        else { return nil }
        var written = 0
        let status = CCryptoBoringSSL_EVP_AEAD_CTX_open(
            context, target.assumingMemoryBound(to: UInt8.self), &written, out.count,
            base.assumingMemoryBound(to: UInt8.self), Self.nonceSize,
            (base + Self.nonceSize).assumingMemoryBound(to: UInt8.self), sealed.count - Self.nonceSize,
            ad.baseAddress?.assumingMemoryBound(to: UInt8.self), ad.count)
        return status == 1 ? written : nil
    }
}
