import FingerlockProtocol

/// The bounds that keep one client from hurting the others.
public struct ServiceLimits: Sendable {
    /// Bytes in one message before its NUL; more is refused and the connection closed.
    public var maximumMessageSize = ServiceInterface.maximumMessageSize
    /// Open connections in all; one more is told `TooManyConnections` and closed.
    public var maximumConnections = 256
    /// Open connections of one account (a user with all their subordinate uids, `UIDAccount`), so
    /// one user's idle connections never lock the others out.
    public var maximumConnectionsPerUser = 32
    /// The last connections of `maximumConnections`, kept for accounts that hold none: when other
    /// accounts fill their shares, a user who holds no connection still gets one (`ConnectionCounts`).
    public var reservedConnections = 32
    /// A connection with no message under way is closed after this long.
    public var idleTimeout: Duration = .seconds(60)
    /// A message must arrive whole within this time from its first byte (slowloris).
    public var messageTimeout: Duration = .seconds(10)
    /// A reply the client does not read within this time closes the connection.
    public var writeTimeout: Duration = .seconds(10)
    /// Refusals (too many connections, a message too large) logged one by one per window of this
    /// length; the rest of the window's are counted in one summary line (`RefusalLog`).
    public var refusalLogWindow: Duration = .seconds(10)
    public var refusalsLoggedPerWindow = 5

    public init() {}
}
