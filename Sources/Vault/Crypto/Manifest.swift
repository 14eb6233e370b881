import Foundation

/// The sealed manifest: one tally per kind of row, and the note tally split by bucket. Sealed (not
/// just MACed) so its counts do not leak either; bound to the store id.
///
/// Version 1 (vaults written before per-bucket tallies) has no buckets: `noteBuckets` is nil, single
/// note reads then check the whole note set, and the next write upgrades the manifest to version 3.
/// Version 2 has the buckets but no trash or revisions (vaults written before issue 28 have none);
/// version 3 adds the trash tally and the revision tallies (overall and per bucket, so one note's
/// history checks only its bucket's revisions).
struct Manifest: Equatable, Sendable {
    var notes = Tally()
    var templates = Tally()
    var settings = Tally()
    /// `NoteBucket.count` tallies that add up to `notes`; nil in a version-1 manifest.
    var noteBuckets: [Tally]? = Array(repeating: Tally(), count: NoteBucket.count)
    /// Notes in the trash: H(trash, id and deletion time, revision).
    var trash = Tally()
    /// Earlier revisions kept: H(revision, id, revision number), overall and by the note's bucket.
    var revisions = Tally()
    var revisionBuckets = Array(repeating: Tally(), count: NoteBucket.count)

    mutating func addRevision(_ bucket: NoteBucket, _ element: Tally.Element) {
        revisions.add(element)
        revisionBuckets[bucket.index].add(element)
    }

    mutating func removeRevision(_ bucket: NoteBucket, _ element: Tally.Element) {
        revisions.remove(element)
        revisionBuckets[bucket.index].remove(element)
    }

    mutating func addNote(_ bucket: NoteBucket, _ element: Tally.Element) {
        notes.add(element)
        noteBuckets?[bucket.index].add(element)
    }

    mutating func removeNote(_ bucket: NoteBucket, _ element: Tally.Element) {
        notes.remove(element)
        noteBuckets?[bucket.index].remove(element)
    }

    /// Versions 2 and 3 list only the non-empty buckets (index, tally), in index order: a small
    /// vault's manifest stays small (the note count it reveals is no secret: ids are stored in the
    /// clear). Version 1 is written only for tests of old vaults (every write upgrades it first).
    func sealed(with keys: KeyHierarchy) throws -> Data {
        var writer = ByteWriter(capacity: 256 + 41 * NoteBucket.count)
        writer.u8(noteBuckets == nil ? 1 : 3)
        notes.write(to: &writer)
        templates.write(to: &writer)
        settings.write(to: &writer)
        if let noteBuckets {
            Self.writeBuckets(noteBuckets, to: &writer)
            trash.write(to: &writer)
            revisions.write(to: &writer)
            Self.writeBuckets(revisionBuckets, to: &writer)
        }
        return try Sealer.seal(writer.bytes, key: keys.manifestKey, ad: keys.associatedData("manifest", []))
    }

    private static func writeBuckets(_ buckets: [Tally], to writer: inout ByteWriter) {
        let used = buckets.indices.filter { buckets[$0] != Tally() }
        writer.u32(UInt32(used.count))
        for index in used {
            writer.u8(UInt8(index))
            buckets[index].write(to: &writer)
        }
    }

    /// Buckets as `writeBuckets` lays them out; nil unless they add up to `total`.
    private static func readBuckets(from reader: inout ByteReader, total expected: Tally) -> [Tally]? {
        var buckets = [Tally](repeating: Tally(), count: NoteBucket.count)
        var total = Tally()
        var previous = -1
        guard let used = reader.u32(), used <= NoteBucket.count else { return nil }
        for _ in 0..<used {
            guard let index = reader.u8().map(Int.init), index > previous, let bucket = Tally.read(from: &reader)
            else { return nil }
            buckets[index] = bucket
            total.add(bucket)
            previous = index
        }
        // Only we can seal a manifest, so a mismatch here is our own bug; refuse rather than
        // let single reads and full reads disagree about what is authentic.
        return total.matches(expected) ? buckets : nil
    }

    static func open(_ sealed: Data, with keys: KeyHierarchy) throws(VaultError) -> Manifest {
        guard let plain = Sealer.open(sealed, key: keys.manifestKey, ad: keys.associatedData("manifest", [])) else {
            throw .tampered("manifest")
        }
        var reader = ByteReader(plain)
        guard let version = reader.u8(), (1...3).contains(version), let notes = Tally.read(from: &reader),
            let templates = Tally.read(from: &reader), let settings = Tally.read(from: &reader)
        else { throw .tampered("manifest") }
        var manifest = Manifest(notes: notes, templates: templates, settings: settings, noteBuckets: nil)
        if version >= 2 {
            guard let buckets = readBuckets(from: &reader, total: notes) else { throw .tampered("manifest") }
            manifest.noteBuckets = buckets
        }
        if version >= 3 {
            guard let trash = Tally.read(from: &reader), let revisions = Tally.read(from: &reader),
                let buckets = readBuckets(from: &reader, total: revisions)
            else { throw .tampered("manifest") }
            (manifest.trash, manifest.revisions, manifest.revisionBuckets) = (trash, revisions, buckets)
        }
        guard reader.isAtEnd else { throw .tampered("manifest") }
        return manifest
    }
}
