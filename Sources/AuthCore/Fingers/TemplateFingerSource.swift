public import Fingerprint
import Synchronization

/// Fingers kept as templates (sealed in the vault in user mode, in fingerlockd's store in system
/// mode), matched by a libfprint or simulated reader in this process.
public final class TemplateFingerSource: FingerSource {
    public let fingerprintReader: any FingerprintReader
    /// The vault's prints, of every reader.
    private let prints: [EnrolledPrint]
    /// Prints the reader turned out to have lost during this command: later touches leave them out.
    private let lost = Mutex<[EnrolledPrint]>([])

    public init(_ prints: [EnrolledPrint], reader: any FingerprintReader) {
        self.prints = prints
        self.fingerprintReader = reader
    }

    public var reader: ReaderInfo { fingerprintReader.info }

    public func enrolledFingers() async throws -> [EnrolledFinger] {
        prints.filter { $0.reader == fingerprintReader.identity }.map { EnrolledFinger(finger: $0.finger, reader: $0.reader) }
    }

    public func candidates(_ wanted: Finger?) async throws -> CheckedFingers {
        let candidates = try matchCandidates(wanted)
        return CheckedFingers(fingers: candidates.prints.map(\.finger), identifies: candidates.identifies)
    }

    /// The prints a touch is matched against (the rule both modes share), less those found lost.
    public func matchCandidates(_ wanted: Finger?) throws(MatchCandidates.Problem) -> MatchCandidates {
        let gone = lost.withLock { $0 }
        return try MatchCandidates(
            prints.filter { !gone.contains($0) }, reader: fingerprintReader.identity, canIdentify: reader.canIdentify,
            wanted: wanted)
    }

    public func match(_ wanted: Finger?, timeout: Duration, fingerRead: @escaping @Sendable () -> Void) async throws
        -> FingerMatch
    {
        let candidates = try matchCandidates(wanted)
        switch try await fingerprintReader.match(candidates.prints, timeout: timeout, fingerRead: fingerRead) {
        case .match(let print) where candidates.prints.contains(print):
            return .match(print.finger)
        case .match, .noMatch:
            // A print that was not a candidate matched: no candidate did.
            return .noMatch(note: nil)
        case .retry(let reason):
            return .retry(reason)
        case .notInReaderStorage:
            // Whether "not in my storage" was about lost prints (``LostPrints``): asked while the
            // reader is still this scan's.
            let found = await LostPrints.find(scanned: candidates.prints, on: fingerprintReader)
            let sentence = found.sentence(on: fingerprintReader.identity)
            if found.noneLeft { return .printsLost(sentence) }
            lost.withLock { $0 += found.prints }
            return .noMatch(note: found.prints.isEmpty ? nil : sentence)
        }
    }
}
