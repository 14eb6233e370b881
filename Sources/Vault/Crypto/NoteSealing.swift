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
        withAD(prefix, id: id, revision: revision) { Array($0) }
    }

    /// The same bytes as `ad`, built on the stack for `use`: a scan opens every row with its own
    /// associated data, and an array each was an allocation per header and per body.
    private static func withAD<Value>(
        _ prefix: [UInt8], id: String, revision: UInt64, _ use: (UnsafeRawBufferPointer) -> Value
    ) -> Value {
        var id = id
        return id.withUTF8 { withAD(prefix, id: UnsafeRawBufferPointer($0), revision: revision, use) }
    }

    private static func withAD<Value>(
        _ prefix: [UInt8], id idBytes: UnsafeRawBufferPointer, revision: UInt64, _ use: (UnsafeRawBufferPointer) -> Value
    ) -> Value {
        let count = prefix.count + 4 + idBytes.count + 8
        return withUnsafeTemporaryAllocation(byteCount: count, alignment: 8) { out in
            prefix.withUnsafeBytes { out.copyMemory(from: $0) }
            out.storeBytes(of: UInt32(idBytes.count).littleEndian, toByteOffset: prefix.count, as: UInt32.self)
            UnsafeMutableRawBufferPointer(rebasing: out[(prefix.count + 4)...]).copyMemory(from: idBytes)
            out.storeBytes(of: revision.littleEndian, toByteOffset: count - 8, as: UInt64.self)
            return use(UnsafeRawBufferPointer(out))
        }
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
        guard let sealed else { throw .tampered("note \(id)") }
        var id = id
        let opened = sealed.withUnsafeBytes { box in
            id.withUTF8 { idBytes in
                Result { () throws(VaultError) in
                    try openHeader(box, keys: keys, id: UnsafeRawBufferPointer(idBytes), revision: revision)
                }
            }
        }
        return try opened.get()
    }

    /// The same, from the row's bytes as a scan reads them: the stored id's UTF-8 and the sealed
    /// header (nil for NULL). The id string is made only for an error message.
    static func openHeader(_ sealed: UnsafeRawBufferPointer?, keys: KeyHierarchy, id: UnsafeRawBufferPointer, revision: UInt64)
        throws(VaultError) -> NoteSummary
    {
        // The id string itself is bound into the AD, so only its parse is needed here.
        // The opener alone goes into the closure: capturing `keys` copied (retained) all of it per row.
        let opener = keys.noteHeaderOpener
        guard let sealed, let uuid = UUID(storageKey: id),
            let plain = withAD(keys.noteHeaderADPrefix, id: id, revision: revision, { opener.open(sealed, ad: $0) })
        else { throw tampered(id) }
        var reader = ByteReader(plain)
        guard reader.u8() == 1, let title = reader.string(), let tagCount = reader.u32(), tagCount < 1 << 20 else {
            throw tampered(id)
        }
        var tags: [String] = []
        tags.reserveCapacity(Int(tagCount))
        for _ in 0..<tagCount {
            guard let tag = reader.string() else { throw tampered(id) }
            tags.append(tag)
        }
        guard let created = reader.date(), let modified = reader.date(), reader.isAtEnd else { throw tampered(id) }
        return NoteSummary(id: uuid, title: title, tags: tags, created: created, modified: modified)
    }

    /// Tampering with the note whose stored id is `id`.
    static func tampered(_ id: UnsafeRawBufferPointer) -> VaultError {
        .tampered("note \(String(decoding: id, as: UTF8.self))")
    }

    static func openBody(_ sealed: Data?, keys: KeyHierarchy, id: String, revision: UInt64) throws(VaultError) -> Data {
        guard let sealed, let plain = keys.noteBodyOpener.open(sealed, ad: bodyAD(keys, id: id, revision: revision))
        else { throw .tampered("note \(id)") }
        return Data(plain)
    }

    /// Opens a body into scratch memory for `look`, which must not keep the bytes: a search matches
    /// every body and keeps none, so no body gets an allocation of its own. `sealed` and `id` are
    /// the row's bytes as a scan reads them (nil for NULL).
    static func withOpenedBody<Value>(
        _ sealed: UnsafeRawBufferPointer?, keys: KeyHierarchy, id: UnsafeRawBufferPointer, revision: UInt64,
        _ look: (UnsafeRawBufferPointer) -> Value
    ) throws(VaultError) -> Value {
        guard let sealed else { throw tampered(id) }
        let (opener, prefix) = (keys.noteBodyOpener, keys.noteBodyADPrefix)
        let outcome: Value? = withUnsafeTemporaryAllocation(byteCount: max(1, sealed.count), alignment: 8) { scratch in
            let opened = withAD(prefix, id: id, revision: revision) { ad in opener.open(sealed, ad: ad, into: scratch) }
            guard let count = opened else { return nil }
            return look(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(scratch)[..<count]))
        }
        guard let outcome else { throw tampered(id) }
        return outcome
    }

    /// The same, for a body held as `Data` with its row's id as a string.
    static func withOpenedBody<Value>(
        _ sealed: Data?, keys: KeyHierarchy, id: String, revision: UInt64, _ look: (UnsafeRawBufferPointer) -> Value
    ) throws(VaultError) -> Value {
        guard let sealed else { throw .tampered("note \(id)") }
        var id = id
        let outcome = sealed.withUnsafeBytes { box in
            id.withUTF8 { idBytes in
                Result { () throws(VaultError) in
                    try withOpenedBody(box, keys: keys, id: UnsafeRawBufferPointer(idBytes), revision: revision, look)
                }
            }
        }
        return try outcome.get()
    }

    static func bodyString(_ plain: Data, id: String) throws(VaultError) -> String {
        guard let text = String(validating: plain, as: UTF8.self) else { throw .tampered("note \(id)") }
        return text
    }
}
