import FingerlockProtocol
import Logging

/// Who may scan: asked of the seat (logind in `fingerlockd`) before a scan waits for the reader and
/// again when its turn comes, so a request that waited while the seat changed hands scans nothing.
extension ServiceCore {
    /// How often a request that may scan asks again whether its caller still holds the seat.
    static let seatRecheck = Duration.seconds(1)

    /// Runs `body` (a request that scans) while its caller is the user at the reader's seat: asked
    /// again every ``seatRecheck``, and when the seat has changed hands (a user switch) the request
    /// ends with `NotAtSeat`, its scan cancelled, so a touch by the next person at the reader never
    /// goes to it. A finger the reader read before then stays counted, as with any cancelled scan.
    func whileAtSeat<T: Sendable>(
        _ peer: PeerCredentials, for method: String, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body() }
            group.addTask { [self] in
                while true {
                    try await Task.sleep(for: Self.seatRecheck)
                    try await requireSeat(peer, for: method)
                }
            }
            defer { group.cancelAll() }
            // The watch never ends but by throwing: the first value is the body's.
            while let next = try await group.next() {
                if let next { return next }
            }
            throw CancellationError()
        }
    }

    /// A request's turn at the reader has come: its caller must still be the user at the seat (the
    /// seat may have changed hands while it waited); logged, so the log shows whose scan holds it.
    func takeReader(_ peer: PeerCredentials, for method: String) async throws(VarlinkError) {
        try await requireSeat(peer, for: method)
        logger.info("reader taken", metadata: ["uid": "\(peer.uid)", "pid": "\(peer.pid)", "method": "\(method)"])
    }

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
