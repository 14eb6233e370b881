import Crypto
public import Foundation

extension OTPAuthURI {
    /// The code at `date` (TOTP), or of the URI's counter (HOTP).
    public func code(at date: Date) -> String {
        switch kind {
        case .totp(let period): code(counter: UInt64(max(0, date.timeIntervalSince1970)) / UInt64(period))
        case .hotp(let counter): code(counter: counter)
        }
    }

    /// Seconds until the TOTP code at `date` changes; nil for HOTP.
    public func secondsLeft(at date: Date) -> Int? {
        guard case .totp(let period) = kind else { return nil }
        let now = Int(max(0, date.timeIntervalSince1970))
        return period - now % period
    }

    /// RFC 4226's HOTP of `counter`: HMAC of the counter's 8 big-endian bytes, dynamic truncation,
    /// the last `digits` decimal digits.
    public func code(counter: UInt64) -> String {
        let message = withUnsafeBytes(of: counter.bigEndian) { Array($0) }
        let key = SymmetricKey(data: secret)
        let mac: [UInt8] =
            switch algorithm {
            case .sha1: Array(HMAC<Insecure.SHA1>.authenticationCode(for: message, using: key))
            case .sha256: Array(HMAC<SHA256>.authenticationCode(for: message, using: key))
            case .sha512: Array(HMAC<SHA512>.authenticationCode(for: message, using: key))
            }
        let offset = Int(mac[mac.count - 1] & 0x0f)
        let truncated =
            (UInt32(mac[offset] & 0x7f) << 24) | (UInt32(mac[offset + 1]) << 16) | (UInt32(mac[offset + 2]) << 8)
            | UInt32(mac[offset + 3])
        var modulus: UInt32 = 1
        for _ in 0..<digits { modulus *= 10 }
        let value = String(truncated % modulus)
        return String(repeating: "0", count: digits - value.count) + value
    }
}
