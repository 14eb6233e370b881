public import Foundation
import GRDB

/// Sealed settings: security knobs (key-cache expiry, tries, ...) that nobody can loosen without
/// unlocking the vault. Names are stored in the clear, values sealed and bound to name and revision.
extension Vault {
    private static func settingAD(_ keys: KeyHierarchy, key: String, revision: UInt64) -> [UInt8] {
        keys.associatedData("setting", [Array(key.utf8)], revision: revision)
    }

    /// Sets a value; the stored set is checked against the manifest first, so a setting rolled back
    /// (or deleted) behind our back is reported rather than silently built upon.
    public func setSetting(_ value: Data, for key: String) throws(VaultError) {
        try write { db, keys, manifest in
            try Self.verifySettings(db, keys, manifest)
            let hasher = TallyHasher(key: keys.tallyKey)
            var revision: UInt64 = 1
            if let row = try Row.fetchOne(db, sql: "SELECT revision, sealed FROM settings WHERE key = ?", arguments: [key]) {
                let old = try Self.revision(row[0], part: "setting \(key)")
                _ = try Self.openSetting(row[1], keys: keys, key: key, revision: old)
                manifest.settings.remove(hasher.setting(key, revision: old))
                revision = old + 1
            }
            let sealed = try Sealer.seal(
                value, key: keys.settingKey, ad: Self.settingAD(keys, key: key, revision: revision))
            try db.execute(
                sql: "INSERT OR REPLACE INTO settings (key, revision, sealed) VALUES (?, ?, ?)",
                arguments: [key, revision, sealed])
            manifest.settings.add(hasher.setting(key, revision: revision))
        }
    }

    public func setSetting(_ value: String, for key: String) throws(VaultError) {
        try setSetting(Data(value.utf8), for: key)
    }

    /// One setting's value, or nil when it was never set. The whole (small) set is checked against
    /// the manifest, so an older value put back, or a setting deleted, is `.tampered`.
    public func setting(_ key: String) throws(VaultError) -> Data? {
        try read { db, keys, manifest in
            try Self.verifySettings(db, keys, manifest)
            guard let row = try Row.fetchOne(db, sql: "SELECT revision, sealed FROM settings WHERE key = ?", arguments: [key])
            else { return nil }
            return try Self.openSetting(row[1], keys: keys, key: key, revision: try Self.revision(row[0], part: "setting \(key)"))
        }
    }

    public func stringSetting(_ key: String) throws(VaultError) -> String? {
        guard let data = try setting(key) else { return nil }
        guard let text = String(validating: data, as: UTF8.self) else {
            throw VaultError(.invalidInput, "The setting \(key) is not text.")
        }
        return text
    }

    /// Every setting, verified as a set against the manifest.
    public func settings() throws(VaultError) -> [String: Data] {
        try read { db, keys, manifest in
            let hasher = TallyHasher(key: keys.tallyKey)
            var tally = Tally()
            var result: [String: Data] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT key, revision, sealed FROM settings") {
                guard let key = row.text(0) else { throw VaultError.tampered("setting table") }
                let revision = try Self.revision(row[1], part: "setting \(key)")
                result[key] = try Self.openSetting(row[2], keys: keys, key: key, revision: revision)
                tally.add(hasher.setting(key, revision: revision))
            }
            guard tally.matches(manifest.settings) else { throw VaultError.tampered("setting set") }
            return result
        }
    }

    /// Removes a setting; returns whether it was set.
    @discardableResult
    public func removeSetting(_ key: String) throws(VaultError) -> Bool {
        try write { db, keys, manifest in
            try Self.verifySettings(db, keys, manifest)
            guard let row = try Row.fetchOne(db, sql: "SELECT revision, sealed FROM settings WHERE key = ?", arguments: [key])
            else { return false }
            let revision = try Self.revision(row[0], part: "setting \(key)")
            _ = try Self.openSetting(row[1], keys: keys, key: key, revision: revision)
            try db.execute(sql: "DELETE FROM settings WHERE key = ?", arguments: [key])
            manifest.settings.remove(TallyHasher(key: keys.tallyKey).setting(key, revision: revision))
            return true
        }
    }

    static func openSetting(_ sealed: DatabaseValue, keys: KeyHierarchy, key: String, revision: UInt64) throws(VaultError)
        -> Data
    {
        guard let blob = Data.fromDatabaseValue(sealed),
            let plain = Sealer.open(blob, key: keys.settingKey, ad: settingAD(keys, key: key, revision: revision))
        else { throw .tampered("setting \(key)") }
        return plain
    }
}
