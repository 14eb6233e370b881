public import Foundation
import GRDB

extension Vault {
    private static func templateAD(_ keys: KeyHierarchy, reader: String, finger: String, revision: UInt64) -> [UInt8] {
        keys.associatedData("template", [Array(reader.utf8), Array(finger.utf8)], revision: revision)
    }

    /// Stores (or replaces) the template for `finger` on `reader` ("driver:device-id"), sealed and
    /// bound to both, so it cannot be planted or moved without the store master key. The stored set
    /// is checked against the manifest first.
    public func putTemplate(_ data: Data, reader: String, finger: String) throws(VaultError) {
        try write { db, keys, manifest in
            try Self.verifyTemplates(db, keys, manifest)
            let hasher = TallyHasher(key: keys.tallyKey)
            var revision: UInt64 = 1
            if let row = try Row.fetchOne(
                db, sql: "SELECT revision, sealed FROM templates WHERE reader = ? AND finger = ?",
                arguments: [reader, finger])
            {
                let old = try Self.revision(row[0], part: "template \(finger) on \(reader)")
                _ = try Self.openTemplate(row[1], keys: keys, reader: reader, finger: finger, revision: old)
                manifest.templates.remove(hasher.template(reader: reader, finger: finger, revision: old))
                revision = old + 1
            }
            let sealed = try Sealer.seal(
                data, key: keys.templateKey,
                ad: Self.templateAD(keys, reader: reader, finger: finger, revision: revision))
            try db.execute(
                sql: "INSERT OR REPLACE INTO templates (reader, finger, revision, sealed) VALUES (?, ?, ?, ?)",
                arguments: [reader, finger, revision, sealed])
            manifest.templates.add(hasher.template(reader: reader, finger: finger, revision: revision))
        }
    }

    /// One template, or nil if none is stored for this reader and finger. The whole (small) set is
    /// checked against the manifest, so an older template put back, or one deleted, is `.tampered`.
    public func template(reader: String, finger: String) throws(VaultError) -> Data? {
        try read { db, keys, manifest in
            try Self.verifyTemplates(db, keys, manifest)
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT revision, sealed FROM templates WHERE reader = ? AND finger = ?",
                    arguments: [reader, finger])
            else { return nil }
            let revision = try Self.revision(row[0], part: "template \(finger) on \(reader)")
            return try Self.openTemplate(row[1], keys: keys, reader: reader, finger: finger, revision: revision)
        }
    }

    /// Every stored template (optionally of one reader), verified as a set against the manifest:
    /// a deleted, added or rolled-back template is reported as tampering.
    public func templates(reader wanted: String? = nil) throws(VaultError) -> [SealedTemplate] {
        try read { db, keys, manifest in
            let hasher = TallyHasher(key: keys.tallyKey)
            var tally = Tally()
            var result: [SealedTemplate] = []
            for row in try Row.fetchAll(db, sql: "SELECT reader, finger, revision, sealed FROM templates ORDER BY reader, finger") {
                guard let reader = row.text(0), let finger = row.text(1) else {
                    throw VaultError.tampered("template table")
                }
                let revision = try Self.revision(row[2], part: "template \(finger) on \(reader)")
                let data = try Self.openTemplate(row[3], keys: keys, reader: reader, finger: finger, revision: revision)
                tally.add(hasher.template(reader: reader, finger: finger, revision: revision))
                if wanted == nil || wanted == reader {
                    result.append(SealedTemplate(reader: reader, finger: finger, data: data))
                }
            }
            guard tally.matches(manifest.templates) else { throw VaultError.tampered("template set") }
            return result
        }
    }

    /// Deletes one template; returns whether there was one.
    @discardableResult
    public func deleteTemplate(reader: String, finger: String) throws(VaultError) -> Bool {
        try deleteTemplates { $0 == reader && $1 == finger } > 0
    }

    /// Deletes every template of `reader`, or all of them when `reader` is nil; returns how many.
    @discardableResult
    public func deleteTemplates(reader: String? = nil) throws(VaultError) -> Int {
        try deleteTemplates { candidate, _ in reader == nil || candidate == reader }
    }

    private func deleteTemplates(where matches: (String, String) -> Bool) throws(VaultError) -> Int {
        try write { db, keys, manifest in
            try Self.verifyTemplates(db, keys, manifest)
            let hasher = TallyHasher(key: keys.tallyKey)
            var deleted = 0
            for row in try Row.fetchAll(db, sql: "SELECT reader, finger, revision, sealed FROM templates") {
                guard let reader = row.text(0), let finger = row.text(1) else {
                    throw VaultError.tampered("template table")
                }
                guard matches(reader, finger) else { continue }
                let revision = try Self.revision(row[2], part: "template \(finger) on \(reader)")
                _ = try Self.openTemplate(row[3], keys: keys, reader: reader, finger: finger, revision: revision)
                try db.execute(
                    sql: "DELETE FROM templates WHERE reader = ? AND finger = ?", arguments: [reader, finger])
                manifest.templates.remove(hasher.template(reader: reader, finger: finger, revision: revision))
                deleted += 1
            }
            return deleted
        }
    }

    static func openTemplate(_ sealed: DatabaseValue, keys: KeyHierarchy, reader: String, finger: String, revision: UInt64)
        throws(VaultError) -> Data
    {
        guard let blob = Data.fromDatabaseValue(sealed),
            let plain = Sealer.open(
                blob, key: keys.templateKey, ad: templateAD(keys, reader: reader, finger: finger, revision: revision))
        else { throw .tampered("template \(finger) on \(reader)") }
        return plain
    }
}
