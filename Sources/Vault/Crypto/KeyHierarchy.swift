import Crypto
import Foundation

/// The store master key (SMK) and the purpose keys derived from it with HKDF-SHA256 (salt: the
/// store id). One key per purpose means a ciphertext or MAC made for one purpose can never be
/// accepted for another, even before the associated data is compared.
struct KeyHierarchy: Sendable {
    static let formatVersion: UInt32 = 1

    let master: SymmetricKey
    let storeID: UUID
    let noteHeaderKey: SymmetricKey
    let noteBodyKey: SymmetricKey
    let templateKey: SymmetricKey
    let settingKey: SymmetricKey
    let manifestKey: SymmetricKey
    let slotTableKey: SymmetricKey
    let tallyKey: SymmetricKey
    /// Seals what sync keeps on this machine (entries, device state).
    let syncEntryKey: SymmetricKey
    /// Seals the change records sync puts on the remote (every machine of the vault derives it).
    let syncRecordKey: SymmetricKey
    /// The key-check value: proves a key belongs to this vault without decrypting anything.
    let keyCheck: Data
    /// The fixed start of note associated data, computed once rather than per row.
    let noteHeaderADPrefix: [UInt8]
    let noteBodyADPrefix: [UInt8]
    /// One AES-GCM context per note key, shared by every row a scan opens.
    let noteHeaderOpener: AESGCMOpener
    let noteBodyOpener: AESGCMOpener

    init(master: SymmetricKey, storeID: UUID) {
        self.master = master
        self.storeID = storeID
        let salt = storeID.bytes
        func derive(_ purpose: String) -> SymmetricKey {
            HKDF<SHA256>.deriveKey(
                inputKeyMaterial: master, salt: salt, info: Array("fingerlock/vault/v1/\(purpose)".utf8),
                outputByteCount: 32)
        }
        noteHeaderKey = derive("note-header")
        noteBodyKey = derive("note-body")
        templateKey = derive("template")
        settingKey = derive("setting")
        manifestKey = derive("manifest")
        slotTableKey = derive("slot-table")
        tallyKey = derive("tally")
        syncEntryKey = derive("sync-entry")
        syncRecordKey = derive("sync-record")
        var check = ByteWriter()
        check.raw(Array("fingerlock key check".utf8))
        check.u32(Self.formatVersion)
        check.raw(salt)
        keyCheck = Data(HMAC<SHA256>.authenticationCode(for: check.bytes, using: derive("key-check")))
        noteHeaderADPrefix = Self.associatedData("note-header", storeID: storeID, [])
        noteBodyADPrefix = Self.associatedData("note-body", storeID: storeID, [])
        noteHeaderOpener = AESGCMOpener(key: noteHeaderKey)
        noteBodyOpener = AESGCMOpener(key: noteBodyKey)
    }

    static func randomMaster() -> SymmetricKey { SymmetricKey(size: .bits256) }

    /// Constant-time comparison of a stored key-check value with ours.
    func matches(keyCheck stored: Data) -> Bool {
        guard stored.count == keyCheck.count else { return false }
        var difference: UInt8 = 0
        for (a, b) in zip(stored, keyCheck) { difference |= a ^ b }
        return difference == 0
    }

    /// Associated data: a purpose label, the format version and the store id, then the fields
    /// that pin a ciphertext to its place (note id and revision, reader and finger, ...).
    static func associatedData(_ purpose: String, storeID: UUID, _ fields: [[UInt8]], revision: UInt64? = nil)
        -> [UInt8]
    {
        var writer = ByteWriter(capacity: 96)
        writer.string("fingerlock/" + purpose)
        writer.u32(formatVersion)
        writer.raw(storeID.bytes)
        for field in fields { writer.field(field) }
        if let revision { writer.u64(revision) }
        return writer.bytes
    }

    func associatedData(_ purpose: String, _ fields: [[UInt8]], revision: UInt64? = nil) -> [UInt8] {
        Self.associatedData(purpose, storeID: storeID, fields, revision: revision)
    }
}

/// AES-256-GCM with a fresh random 96-bit nonce per seal; stored as nonce ‖ ciphertext ‖ tag.
enum Sealer {
    static func seal<P: DataProtocol, A: DataProtocol>(_ plaintext: P, key: SymmetricKey, ad: A) throws -> Data {
        // `combined` is nil only for non-standard nonce sizes; we always use the 12-byte default.
        guard let combined = try AES.GCM.seal(plaintext, using: key, nonce: AES.GCM.Nonce(), authenticating: ad).combined
        else { throw VaultError(.io, "Could not seal data.") }
        return combined
    }

    /// nil when the blob does not authenticate under this key and associated data.
    static func open(_ combined: Data, key: SymmetricKey, ad: [UInt8]) -> Data? {
        guard combined.count >= 28, let box = try? AES.GCM.SealedBox(combined: combined) else { return nil }
        return try? AES.GCM.open(box, using: key, authenticating: ad)
    }
}

extension UUID {
    var bytes: [UInt8] {
        withUnsafeBytes(of: uuid) { Array($0) }
    }

    /// The canonical form stored in the database and bound into associated data.
    var storageKey: String { uuidString.lowercased() }

    /// Parses the canonical lowercase form without Foundation's sscanf-based parser, which costs
    /// more than decrypting the row when listing 100k notes.
    init?(storageKey text: String) {
        var text = text
        guard let parsed = text.withUTF8({ Self.parse(storageKey: UnsafeRawBufferPointer($0)) }) else { return nil }
        self.init(uuid: parsed)
    }

    /// The same parse of the stored form's UTF-8 bytes (a scan reads them straight from SQLite).
    init?(storageKey bytes: UnsafeRawBufferPointer) {
        guard let parsed = Self.parse(storageKey: bytes) else { return nil }
        self.init(uuid: parsed)
    }

    private static func parse(storageKey utf8: UnsafeRawBufferPointer) -> uuid_t? {
        guard utf8.count == 36 else { return nil }
        var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let valid = withUnsafeMutableBytes(of: &uuid) { out -> Bool in
            var index = 0
            var byte = 0
            while index < 36 {
                if index == 8 || index == 13 || index == 18 || index == 23 {
                    guard utf8[index] == UInt8(ascii: "-") else { return false }
                    index += 1
                    continue
                }
                guard let high = hexValue(utf8[index]), let low = hexValue(utf8[index + 1]) else { return false }
                out[byte] = high << 4 | low
                byte += 1
                index += 2
            }
            return true
        }
        return valid ? uuid : nil
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
