import Foundation

/// How a note is sealed: a small header (title, tags, dates) and the body, each its own AES-GCM
/// blob, each bound to store id, note id and revision, so neither can be swapped between notes,
/// between a note's revisions, or with each other.
enum NoteSealing {
    static func headerAD(_ keys: KeyHierarchy, id: String, revision: UInt64) -> [UInt8] {
        ad(keys.noteHeaderADPrefix, id: id, revision: revision)
    }

    static func bodyAD(_ keys: KeyHierarchy, id: String, revision: UInt64) -> [UInt8] {
        ad(keys.noteBodyADPrefix, id: id, revision: revision)
    }

    /// Equal to `keys.associatedData(purpose, [id], revision:)`, from a precomputed prefix.
    private static func ad(_ prefix: [UInt8], id: String, revision: UInt64) -> [UInt8] {
        var writer = ByteWriter(capacity: prefix.count + 48)
        writer.raw(prefix)
        writer.u32(UInt32(id.utf8.count))
        writer.raw(id.utf8)
        writer.u64(revision)
        return writer.bytes
    }

    static func sealHeader(_ note: Note, keys: KeyHierarchy, revision: UInt64) throws -> Data {
        var writer = ByteWriter(capacity: 64 + note.title.utf8.count)
        writer.u8(1)
        writer.string(note.title)
        writer.u32(UInt32(note.tags.count))
        for tag in note.tags { writer.string(tag) }
        writer.date(note.created)
        writer.date(note.modified)
        return try Sealer.seal(
            writer.bytes, key: keys.noteHeaderKey, ad: headerAD(keys, id: note.id.storageKey, revision: revision))
    }

    static func sealBody(_ note: Note, keys: KeyHierarchy, revision: UInt64) throws -> Data {
        try Sealer.seal(
            Array(note.body.utf8), key: keys.noteBodyKey, ad: bodyAD(keys, id: note.id.storageKey, revision: revision))
    }

    /// Opens a header read from row `id`; any failure is tampering with that note.
    static func openHeader(_ sealed: Data?, keys: KeyHierarchy, id: String, revision: UInt64) throws(VaultError)
        -> NoteSummary
    {
        // The id string itself is bound into the AD, so only its parse is needed here.
        guard let sealed, let uuid = UUID(storageKey: id),
            let plain = keys.noteHeaderOpener.open(sealed, ad: headerAD(keys, id: id, revision: revision))
        else { throw .tampered("note \(id)") }
        var reader = ByteReader(plain)
        guard reader.u8() == 1, let title = reader.string(), let tagCount = reader.u32(), tagCount < 1 << 20 else {
            throw .tampered("note \(id)")
        }
        var tags: [String] = []
        for _ in 0..<tagCount {
            guard let tag = reader.string() else { throw .tampered("note \(id)") }
            tags.append(tag)
        }
        guard let created = reader.date(), let modified = reader.date(), reader.isAtEnd else {
            throw .tampered("note \(id)")
        }
        return NoteSummary(id: uuid, title: title, tags: tags, created: created, modified: modified)
    }

    static func openBody(_ sealed: Data?, keys: KeyHierarchy, id: String, revision: UInt64) throws(VaultError) -> Data {
        guard let sealed, let plain = keys.noteBodyOpener.open(sealed, ad: bodyAD(keys, id: id, revision: revision))
        else { throw .tampered("note \(id)") }
        return Data(plain)
    }

    /// Opens a body into scratch memory for `look`, which must not keep the bytes: a search matches
    /// every body and keeps none, so no body gets an allocation of its own.
    static func withOpenedBody<Value>(
        _ sealed: Data?, keys: KeyHierarchy, id: String, revision: UInt64, _ look: (UnsafeRawBufferPointer) -> Value
    ) throws(VaultError) -> Value {
        guard let sealed else { throw .tampered("note \(id)") }
        let ad = bodyAD(keys, id: id, revision: revision)
        let outcome: Value? = sealed.withUnsafeBytes { box in
            withUnsafeTemporaryAllocation(byteCount: max(1, box.count), alignment: 8) { scratch in
                guard let count = keys.noteBodyOpener.open(box, ad: ad, into: scratch) else { return nil }
                let plain = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(scratch)[..<count])
                return look(plain)
            }
        }
        guard let outcome else { throw .tampered("note \(id)") }
        return outcome
    }

    static func bodyString(_ plain: Data, id: String) throws(VaultError) -> String {
        guard let text = String(validating: plain, as: UTF8.self) else { throw .tampered("note \(id)") }
        return text
    }
}
