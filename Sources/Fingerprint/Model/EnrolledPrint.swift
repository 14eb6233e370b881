public import FoundationEssentials

/// A finger enrolled on one reader: the template is opaque bytes only that reader (driver) understands.
public struct EnrolledPrint: Codable, Hashable, Sendable {
    public var finger: Finger
    public var reader: ReaderIdentity
    public var template: Data
    public var enrolled: Date

    public init(finger: Finger, reader: ReaderIdentity, template: Data, enrolled: Date) {
        self.finger = finger
        self.reader = reader
        self.template = template
        self.enrolled = enrolled
    }
}
