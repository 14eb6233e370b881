public import Fingerprint

/// What `system enable` or `system disable` did with the enrolled fingers.
public struct SystemModeFingers: Sendable, Equatable {
    /// A finger that stayed where it was (nil: the vault's fingers could not even be read).
    public struct NotMoved: Sendable, Equatable {
        public var finger: Finger?
        public var reason: String
    }

    public var moved: [Finger] = []
    public var notMoved: [NotMoved] = []
    /// `disable`: the service could not forget the vault (it is in user mode all the same).
    public var warning: String?

    public init() {}
}
