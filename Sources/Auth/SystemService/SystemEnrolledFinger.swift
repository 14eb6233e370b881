public import Fingerprint
public import Foundation

/// A finger the service keeps for a vault (its template never leaves the service).
public struct SystemEnrolledFinger: Sendable, Equatable {
    public var finger: Finger
    public var reader: ReaderIdentity
    /// nil when not known: fprintd's fingers (fprintd does not say when one was enrolled).
    public var enrolled: Date?

    public init(finger: Finger, reader: ReaderIdentity, enrolled: Date?) {
        self.finger = finger
        self.reader = reader
        self.enrolled = enrolled
    }
}
