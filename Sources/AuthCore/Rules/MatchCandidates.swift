public import Fingerprint

/// Which enrolled prints a touch is matched against, in both modes: the vault's prints for the
/// reader in effect, only the finger asked for when one is named, and only the first when the
/// reader cannot identify among several (it can verify one print per scan).
public struct MatchCandidates: Sendable, Equatable {
    public var prints: [EnrolledPrint]
    /// Whether the touch is matched against every candidate (false: only the first was checked,
    /// which `verify` says).
    public var identifies: Bool

    public enum Problem: Error, Equatable, Sendable {
        /// No finger of the vault's is enrolled on this reader.
        case noneEnrolled(ReaderIdentity)
        /// The finger asked for is not enrolled on this reader.
        case fingerNotEnrolled(Finger, ReaderIdentity)
    }

    /// - Parameters:
    ///   - enrolled: the vault's prints, of any reader.
    ///   - wanted: the finger asked for (`verify FINGER`), or nil for any.
    public init(
        _ enrolled: [EnrolledPrint], reader: ReaderIdentity, canIdentify: Bool, wanted: Finger? = nil
    ) throws(Problem) {
        var prints = enrolled.filter { $0.reader == reader }
        guard !prints.isEmpty else { throw .noneEnrolled(reader) }
        if let wanted {
            prints = prints.filter { $0.finger == wanted }
            guard !prints.isEmpty else { throw .fingerNotEnrolled(wanted, reader) }
        }
        identifies = prints.count == 1 || canIdentify
        self.prints = identifies ? prints : [prints[0]]
    }
}
