/// The interface's enumerated string values, one type each, so both ends spell them from one place
/// and a value neither end knows is a protocol error, never a guess. The wire form is the raw value.
extension ServiceInterface {
    /// `ReaderUnavailable.problem`: why the service's reader cannot scan.
    public enum ReaderProblem: String, Codable, Sendable, CaseIterable {
        case noReader, busy, unplugged, noPermission, deviceError
    }

    /// `EnrollStage.event`: one step of an enrollment.
    public enum EnrollStageEvent: String, Codable, Sendable, CaseIterable {
        /// The reader waits for the first of `total` touches.
        case opened
        /// `completed` of `total` touches done.
        case stage
        /// The touch did not count; `retry` says why.
        case retry
    }
}
