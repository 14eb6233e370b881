/// Where enrolled prints are kept. The reader layer never persists anything itself.
public protocol PrintStore: Sendable {
    /// Every print, sorted by reader then finger.
    func allPrints() throws -> [EnrolledPrint]
    /// The prints enrolled on one reader, sorted by finger.
    func prints(for reader: ReaderIdentity) throws -> [EnrolledPrint]
    /// Saves (or replaces) the print for its reader and finger.
    func save(_ print: EnrolledPrint) throws
    /// Deletes the print; returns whether there was one.
    @discardableResult
    func delete(_ finger: Finger, on reader: ReaderIdentity) throws -> Bool
}
