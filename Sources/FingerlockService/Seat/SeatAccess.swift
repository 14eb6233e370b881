public import FingerlockProtocol

/// Who may have the service's reader scan: the seam between the service's policy and logind.
///
/// The reader sits at a seat; a touch on it comes from the person at that seat. So a scan (an
/// enrollment, a touch unlock, a verify) runs only for the user whose session is active, and local,
/// at the reader's seat, asked by the service itself (never on the client's word) before the scan
/// waits for the reader and again when its turn comes. `fingerlockd` hands in ``LogindSeatAccess``;
/// tests of the policy that are not about the seat hand in ``AnyCallerMayScan``.
public protocol SeatAccess: Sendable {
    /// Whether the peer (`uid` and `pid` as SO_PEERCRED gave them) may scan now. Blocking work
    /// (a D-Bus round trip) runs off Swift's cooperative pool.
    func mayScan(uid: UInt32, pid: Int32) async -> SeatVerdict
}

/// What ``SeatAccess`` decided.
public enum SeatVerdict: Sendable, Equatable {
    case allowed
    case refused(SeatRefusal)
}

/// Why a caller may not scan: `problem` as the wire names it, `evidence` for a person, e.g.
/// "fingerlockd: logind session 4 is a remote login".
public struct SeatRefusal: Sendable, Equatable, CustomStringConvertible {
    public var problem: ServiceInterface.SeatProblem
    public var evidence: String

    public init(_ problem: ServiceInterface.SeatProblem, _ evidence: String) {
        self.problem = problem
        self.evidence = evidence
    }

    public var description: String { evidence }
}

/// Every caller may scan: for hosts of the policy that have no seat to ask (the service's tests in
/// process, the parity suite). `fingerlockd` never uses it.
package struct AnyCallerMayScan: SeatAccess {
    package init() {}
    package func mayScan(uid: UInt32, pid: Int32) async -> SeatVerdict { .allowed }
}
