import FingerlockProtocol
import Logging

/// Who may scan: asked of the seat (logind in `fingerlockd`) before a scan waits for the reader and
/// again when its turn comes, so a request that waited while the seat changed hands scans nothing.
extension ServiceCore {
    /// Throws `NotAtSeat` unless the peer is the user active and local at the reader's seat.
    func requireSeat(_ peer: PeerCredentials, for method: String) async throws(VarlinkError) {
        guard case .refused(let refusal) = await dependencies.seat.mayScan(uid: peer.uid, pid: peer.pid) else { return }
        logger.notice(
            "scan refused: not the user at the reader's seat",
            metadata: [
                "uid": "\(peer.uid)", "pid": "\(peer.pid)", "method": "\(method)", "problem": "\(refusal.problem.rawValue)",
                "why": "\(refusal.evidence)",
            ])
        throw VarlinkError(
            .notAtSeat, ["problem": .string(refusal.problem.rawValue), "message": .string(refusal.evidence)])
    }
}
