import Crypto
public import Foundation
public import Vault

/// A one-time pairing code (`sync pair`, then `sync join --pairing-code` on the new machine).
///
/// The vault key travels through the remote sealed under the code: a label naming the pairing
/// file and a 160-bit secret, so whoever reads the remote cannot guess the code offline (no PAKE
/// is needed at this length). It expires after `lifetime`, and the joining machine removes it.
public struct SyncPairing: Sendable, Equatable {
    public static let lifetime: TimeInterval = 15 * 60
    public let label: String
    let secret: [UInt8]

    /// The code as the user types it: the label, then the secret in groups of four.
    public var code: String {
        let text = Self.base32(secret)
        let groups = stride(from: 0, to: text.count, by: 4).map { start in
            String(text.dropFirst(start).prefix(4))
        }
        return ([label] + groups).joined(separator: "-")
    }

    public static func generate() -> SyncPairing {
        var generator = SystemRandomNumberGenerator()
        let labelBytes = (0..<5).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let secret = (0..<20).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return SyncPairing(label: base32(labelBytes), secret: secret)
    }

    /// Parses what the user typed (any case, dashes and spaces anywhere); nil for anything else.
    public init?(parsing text: String) {
        let cleaned = text.lowercased().filter { !$0.isWhitespace && $0 != "-" }
        guard cleaned.count == 8 + 32, let secret = Self.decode(String(cleaned.dropFirst(8))),
            Self.decode(String(cleaned.prefix(8))) != nil
        else { return nil }
        self.init(label: String(cleaned.prefix(8)), secret: secret)
    }

    init(label: String, secret: [UInt8]) {
        self.label = label
        self.secret = secret
    }

    var path: String { RemoteLayout.pairingPath(label) }

    /// The file put on the remote: the expiry (seconds, 8 bytes little-endian), then the key
    /// sealed under the code with the label and the expiry bound in.
    func file(for vault: Vault, expiring expiry: Date) throws -> Data {
        let seconds = UInt64(max(0, expiry.timeIntervalSince1970))
        var data = Data()
        withUnsafeBytes(of: seconds.littleEndian) { data.append(contentsOf: $0) }
        data.append(try vault.pairingEnvelope(secret: secret, label: "\(label)/\(seconds)"))
        return data
    }

    /// The expiry a pairing file states (nil if it is not one).
    static func expiry(of file: Data) -> Date? {
        guard file.count > 8 else { return nil }
        let seconds = UInt64(littleEndian: file.prefix(8).withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) })
        // A remote's value beyond any real expiry (year 10000) is no pairing: nothing converts it back.
        guard seconds < 253_402_300_800 else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// Opens the pairing on the remote: the vault's key, or why not.
    public func open(from remote: any SyncRemote, now: Date) throws -> VaultJoinKey {
        let info = try SyncEngine.joinInformation(from: remote)
        guard let file = try remote.read([path], from: info.listing)[path], let expiry = Self.expiry(of: file) else {
            throw SyncError(.invalidInput, "No pairing with that code is on the remote: it was used, or the code is mistyped.")
        }
        guard expiry > now else {
            throw SyncError(.invalidInput, "That pairing code has expired; run `fingerlock sync pair` again on a machine that has the notes.")
        }
        let seconds = UInt64(expiry.timeIntervalSince1970)
        return try Vault.joinKey(
            pairingEnvelope: file.dropFirst(8), storeID: info.storeID, secret: secret, label: "\(label)/\(seconds)",
            recoverySlot: info.recoverySlot)
    }

    static let alphabet = Array("abcdefghijkmnpqrstuvwxyz23456789")

    static func base32(_ bytes: [UInt8]) -> String {
        var bits = 0
        var value = 0
        var text = ""
        for byte in bytes {
            value = (value << 8) | Int(byte)
            bits += 8
            while bits >= 5 {
                text.append(alphabet[(value >> (bits - 5)) & 31])
                bits -= 5
            }
        }
        if bits > 0 { text.append(alphabet[(value << (5 - bits)) & 31]) }
        return text
    }

    static func decode(_ text: String) -> [UInt8]? {
        var bits = 0
        var value = 0
        var bytes: [UInt8] = []
        for character in text {
            guard let index = alphabet.firstIndex(of: character) else { return nil }
            value = (value << 5) | index
            bits += 5
            if bits >= 8 {
                bytes.append(UInt8((value >> (bits - 8)) & 0xFF))
                bits -= 8
            }
        }
        return bytes
    }
}

extension SyncEngine {
    /// `sync pair`: puts a pairing for a new machine on the remote and returns its code.
    public func pair() throws -> (code: String, expires: Date) {
        let lock = try syncLock()
        defer { withExtendedLifetime(lock) {} }
        _ = try loadState()
        let pairing = SyncPairing.generate()
        let expiry = now().addingTimeInterval(SyncPairing.lifetime)
        let file = try pairing.file(for: vault, expiring: expiry)
        for _ in 0..<attempts {
            let listing = try remote.fetch()
            try Self.checkFormat(listing, storeID: try vault.storeID, remote: remote)
            if try remote.publish(RemotePublication(added: [pairing.path: file], message: "fingerlock sync"), onto: listing) {
                return (pairing.code, expiry)
            }
        }
        throw SyncError(.busy, "Other machines kept pushing; run `fingerlock sync pair` again.")
    }

    /// Pairing files that expired or were used by `used`, for the next push to remove.
    func pairingsToRemove(_ listing: RemoteListing, used: String?) throws -> [String] {
        // Only names this code makes (the label alphabet): a path is written into git's command stream.
        let paths = listing.sizes.keys.filter { path in
            path.hasPrefix(RemoteLayout.pairingFolder)
                && path.dropFirst(RemoteLayout.pairingFolder.count).allSatisfy { SyncPairing.alphabet.contains($0) }
                && (listing.sizes[path] ?? .max) <= 4096
        }
        guard !paths.isEmpty else { return [] }
        let files = try remote.read(paths, from: listing)
        return paths.filter { path in
            path == used || (files[path].flatMap(SyncPairing.expiry(of:)).map { $0 <= now() } ?? true)
        }.sorted()
    }
}
