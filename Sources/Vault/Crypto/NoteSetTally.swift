/// The note tallies of a scan over the whole note set, overall and per bucket, to compare with the
/// manifest's: a full read checks every bucket too, so a manifest whose buckets disagree with the
/// rows can never pass a listing while failing single reads (or the other way round).
struct NoteSetTally {
    var total = Tally()
    var buckets = [Tally](repeating: Tally(), count: NoteBucket.count)

    /// Adds one note's element; returns its bucket. An id that is not ours is tampering.
    @discardableResult
    mutating func add(id: String, _ element: Tally.Element) throws(VaultError) -> NoteBucket {
        guard let bucket = NoteBucket(storedID: id) else { throw .tampered("note table") }
        total.add(element)
        buckets[bucket.index].add(element)
        return bucket
    }

    /// Adds one note's element, as limbs, to the tally and to its bucket's.
    mutating func add(_ bucket: NoteBucket, _ limbs: Tally.Limbs) {
        total.add(limbs)
        buckets[bucket.index].add(limbs)
    }

    /// Adds every element of `other` (a scan worker's share of the set).
    mutating func add(_ other: NoteSetTally) {
        total.add(other.total)
        for index in 0..<NoteBucket.count { buckets[index].add(other.buckets[index]) }
    }

    /// Throws `.tampered("note set")` unless the scan matches `manifest` (its buckets too, when it
    /// has them).
    func verify(against manifest: Manifest) throws(VaultError) {
        guard total.matches(manifest.notes) else { throw .tampered("note set") }
        guard let expected = manifest.noteBuckets else { return }
        for index in 0..<NoteBucket.count where !buckets[index].matches(expected[index]) {
            throw .tampered("note set")
        }
    }
}
