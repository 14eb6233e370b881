public import Fingerprint
import Synchronization

/// The fingers fprintd keeps for the user, behind the finger seam. fprintd keeps the prints; this
/// source only names fingers, and with the set the vault accepted (``AcceptedFingers``) refuses to
/// scan when fprintd's set is another one: a finger added in the desktop's settings needs only the
/// login password, so it unlocks only after fingerlock's passcode accepted it.
public final class FprintdFingerSource: FingerSource {
    public let fprintd: any FprintdFingers
    public let device: FprintdDevice
    /// The set the vault accepted; nil while it accepts none yet (enrolling, `readers`, `doctor`).
    public let accepted: AcceptedFingers?
    /// fprintd's set as this command found it, asked once (each question is a round trip to fprintd).
    private let checked = Mutex<AcceptedFingers?>(nil)

    /// Asks fprintd for its device (a clear error when fprintd or its device is missing).
    public static func open(_ fprintd: any FprintdFingers, accepted: AcceptedFingers?) async throws -> FprintdFingerSource {
        FprintdFingerSource(fprintd: fprintd, device: try await fprintd.device(), accepted: accepted)
    }

    public init(fprintd: any FprintdFingers, device: FprintdDevice, accepted: AcceptedFingers?) {
        self.fprintd = fprintd
        self.device = device
        self.accepted = accepted
    }

    public var reader: ReaderInfo { device.info }

    public func enrolledFingers() async throws -> [EnrolledFinger] {
        try await fprintd.enrolledFingers().sorted().map { EnrolledFinger(finger: $0, reader: reader.identity) }
    }

    /// fprintd's set now, as a vault would accept it.
    public func currentSet() async throws -> AcceptedFingers {
        if let known = checked.withLock({ $0 }) { return known }
        let current = AcceptedFingers(device: device.name, fingers: try await fprintd.enrolledFingers())
        checked.withLock { $0 = current }
        return current
    }

    /// Throws ``FingersChanged`` when fprintd's set is not the accepted one: nothing is scanned then.
    public func candidates(_ wanted: Finger?) async throws -> CheckedFingers {
        let current = try await currentSet()
        if let accepted, let change = accepted.change(to: current) { throw FingersChanged(change: change, current: current) }
        guard !current.fingers.isEmpty else { throw MatchCandidates.Problem.noneEnrolled(reader.identity) }
        if let wanted {
            guard current.fingers.contains(wanted) else { throw MatchCandidates.Problem.fingerNotEnrolled(wanted, reader.identity) }
            return CheckedFingers(fingers: [wanted], identifies: true)
        }
        // Whether fprintd identifies among them or tries the first only, it says as it verifies
        // (`VerifyFingerSelected`); the finger that matched is named when it is known.
        return CheckedFingers(fingers: current.fingers, identifies: true)
    }

    public func match(_ wanted: Finger?, timeout: Duration, fingerRead: @escaping @Sendable () -> Void) async throws
        -> FingerMatch
    {
        _ = try await candidates(wanted)
        switch try await fprintd.verify(wanted, timeout: timeout, fingerRead: fingerRead) {
        case .match(let selected): return .match(wanted ?? selected)
        case .noMatch(let checked):
            // `any` on a reader that cannot identify: fprintd checked its first finger only, and
            // said which (VerifyFingerSelected); the user learns it with the no-match.
            guard wanted == nil, let checked, (try? await currentSet())?.fingers.count ?? 0 > 1 else { return .noMatch(note: nil) }
            return .noMatch(
                note: "fprintd checked only \(checked): this reader cannot identify among fingers (`fingerlock verify FINGER` checks another).")
        case .retry(let reason): return .retry(reason)
        }
    }

    /// fprintd's fingers are not the set the vault accepted.
    public struct FingersChanged: Error, Equatable, Sendable {
        public var change: AcceptedFingers.Change
        /// fprintd's set now: what the passcode accepts.
        public var current: AcceptedFingers

        public var message: String {
            "fprintd's fingers changed since this vault accepted them (\(change.summary)): the passcode is needed, and accepts them."
        }
    }
}
