public import Fingerprint

/// The enrolled fingers of one user on one reader, and a touch matched against them: the seam every
/// way of keeping fingers goes through. Templates sealed in the vault or in fingerlockd's store with
/// a libfprint reader (``TemplateFingerSource``), and fprintd, which keeps its own prints and only
/// names fingers. Whoever hosts it (user mode, fingerlockd) counts and decides with the same rules
/// (``TouchAttempt``, ``TouchTries``); a source only scans and says what it saw.
public protocol FingerSource: Sendable {
    /// The reader the fingers are on.
    var reader: ReaderInfo { get }

    /// The fingers enrolled on ``reader``.
    func enrolledFingers() async throws -> [EnrolledFinger]

    /// Which fingers a touch would be checked against (only `wanted` when it is named). Throws
    /// ``MatchCandidates/Problem`` when there is nothing to check against.
    func candidates(_ wanted: Finger?) async throws -> CheckedFingers

    /// One touch, checked against ``candidates(_:)``. `fingerRead` is called at most once, when the
    /// reader has read a finger and before the result is returned (never for a scan that only
    /// waited, timed out or was cancelled before a finger was read).
    func match(_ wanted: Finger?, timeout: Duration, fingerRead: @escaping @Sendable () -> Void) async throws -> FingerMatch
}

/// A finger a ``FingerSource`` has enrolled: its name and reader, never a template.
public struct EnrolledFinger: Sendable, Hashable, Codable {
    public var finger: Finger
    public var reader: ReaderIdentity

    public init(finger: Finger, reader: ReaderIdentity) {
        self.finger = finger
        self.reader = reader
    }
}

/// Which fingers one touch is checked against.
public struct CheckedFingers: Sendable, Equatable {
    public var fingers: [Finger]
    /// Whether the touch is checked against every enrolled finger (false: the reader cannot identify
    /// among several, so only the first is checked).
    public var identifies: Bool

    public init(fingers: [Finger], identifies: Bool) {
        self.fingers = fingers
        self.identifies = identifies
    }
}

/// What one touch showed, before any rule is applied to it.
public enum FingerMatch: Sendable, Equatable {
    /// The touch matched `finger`; nil when the source does not say which (fprintd identifying
    /// among all of a user's fingers names none).
    case match(Finger?)
    /// The finger was read and matched none. `note` is what the no-match message adds: which prints
    /// the reader turned out to have lost, and how to get them back (they leave this source's later
    /// touches); or, for fprintd's `any` on a reader that cannot identify, the one finger it checked.
    case noMatch(note: String?)
    /// The reader could not read the finger; nothing was decided.
    case retry(RetryReason)
    /// Every print the touch was checked against is gone from the reader: no finger could have matched.
    case printsLost(String)
}
