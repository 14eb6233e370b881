import Foundation

/// The sealed manifest: one tally per kind of row, and the note tally split by bucket. Sealed (not
/// just MACed) so its counts do not leak either; bound to the store id.
///
/// Version 1 (vaults written before per-bucket tallies) has no buckets: `noteBuckets` is nil, single
/// note reads then check the whole note set, and the next write upgrades the manifest to version 2.
struct Manifest: Equatable, Sendable {
    var notes = Tally()
    var templates = Tally()
    var settings = Tally()
    /// `NoteBucket.count` tallies that add up to `notes`; nil in a version-1 manifest.
    var noteBuckets: [Tally]? = Array(repeating: Tally(), count: NoteBucket.count)

    mutating func addNote(_ bucket: NoteBucket, _ element: Tally.Element) {
        notes.add(element)
        noteBuckets?[bucket.index].add(element)
    }

    mutating func removeNote(_ bucket: NoteBucket, _ element: Tally.Element) {
        notes.remove(element)
        noteBuckets?[bucket.index].remove(element)
    }

    /// Version 2 lists only the non-empty buckets (index, tally), in index order: a small vault's
    /// manifest stays small (the note count it reveals is no secret: ids are stored in the clear).
    func sealed(with keys: KeyHierarchy) throws -> Data {
        let used = (noteBuckets ?? []).indices.filter { noteBuckets?[$0] != Tally() }
        var writer = ByteWriter(capacity: 128 + 41 * used.count)
        writer.u8(noteBuckets == nil ? 1 : 2)
        notes.write(to: &writer)
        templates.write(to: &writer)
        settings.write(to: &writer)
        if let noteBuckets {
            writer.u32(UInt32(used.count))
            for index in used {
                writer.u8(UInt8(index))
                noteBuckets[index].write(to: &writer)
            }
        }
        return try Sealer.seal(writer.bytes, key: keys.manifestKey, ad: keys.associatedData("manifest", []))
    }

    static func open(_ sealed: Data, with keys: KeyHierarchy) throws(VaultError) -> Manifest {
        guard let plain = Sealer.open(sealed, key: keys.manifestKey, ad: keys.associatedData("manifest", [])) else {
            throw .tampered("manifest")
        }
        var reader = ByteReader(plain)
        guard let version = reader.u8(), version == 1 || version == 2, let notes = Tally.read(from: &reader),
            let templates = Tally.read(from: &reader), let settings = Tally.read(from: &reader)
        else { throw .tampered("manifest") }
        var manifest = Manifest(notes: notes, templates: templates, settings: settings, noteBuckets: nil)
        if version == 2 {
            var buckets = [Tally](repeating: Tally(), count: NoteBucket.count)
            var total = Tally()
            var previous = -1
            guard let used = reader.u32(), used <= NoteBucket.count else { throw .tampered("manifest") }
            for _ in 0..<used {
                guard let index = reader.u8().map(Int.init), index > previous, let bucket = Tally.read(from: &reader)
                else { throw .tampered("manifest") }
                buckets[index] = bucket
                total.add(bucket)
                previous = index
            }
            // Only we can seal a manifest, so a mismatch here is our own bug; refuse rather than
            // let single reads and full reads disagree about what is authentic.
            guard total.matches(notes) else { throw .tampered("manifest") }
            manifest.noteBuckets = buckets
        }
        guard reader.isAtEnd else { throw .tampered("manifest") }
        return manifest
    }
}
