public import AuthCore

/// What `doctor` may know about the vault without the passcode: whether it exists and, when a key
/// is cached, which fingers are enrolled.
public struct SetupStatus: Equatable, Sendable {
    public var passcodeSet: Bool
    /// Human names of the enrolled prints, e.g. `right-index-finger on synaptics:1`.
    public var enrolledFingers: [String]
    /// The enrolled set is sealed in the vault: without a cached key it cannot be read (doctor
    /// never asks for the passcode).
    public var fingersUnknown: Bool
    /// The set of fprintd's fingers the vault accepted, when it takes those and the set is known.
    public var acceptedFprintdFingers: AcceptedFingers?

    public init(
        passcodeSet: Bool, enrolledFingers: [String], fingersUnknown: Bool = false, acceptedFprintdFingers: AcceptedFingers? = nil
    ) {
        self.passcodeSet = passcodeSet
        self.enrolledFingers = enrolledFingers
        self.fingersUnknown = fingersUnknown
        self.acceptedFprintdFingers = acceptedFprintdFingers
    }
}
