/// The interface's enumerated string values, one type each, so both ends spell them from one place
/// and a value neither end knows is a protocol error, never a guess. The wire form is the raw value.
extension ServiceInterface {
    /// `ReaderUnavailable.problem`: why the service's reader cannot scan.
    public enum ReaderProblem: String, Codable, Sendable, CaseIterable {
        case noReader, busy, unplugged, noPermission, deviceError
        /// The reader lost every print the touch was checked against (no failed touch).
        case printNotStored
    }

    /// `EnrollStage.event`: one step of an enrollment.
    public enum EnrollStageEvent: String, Codable, Sendable, CaseIterable {
        /// The reader waits for the first of `total` touches.
        case opened
        /// `completed` of `total` touches done.
        case stage
        /// The touch did not count; `retry` says why.
        case retry
        /// Another user's request holds the reader (`busyWith`): this enrollment waits its turn.
        case waiting
    }

    /// `EnrollStage.busyWith`: what another user's request that holds the reader is doing.
    public enum ReaderHolder: String, Codable, Sendable, CaseIterable {
        case enrollment, scan
    }

    /// `NotAtSeat.problem`: why the caller may not scan.
    public enum SeatProblem: String, Codable, Sendable, CaseIterable {
        /// The caller's own logind session is a remote login.
        case remote
        /// No session, another user's, or another session of the caller's is active at the reader's seat.
        case notActive
        /// logind could not be asked (or is absent and the service was not told to scan without it).
        case unknown
    }
}
