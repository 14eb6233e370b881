/// Attempts in flight that were not judged within the ledger's patience: the attempt that waited
/// for them gives up uncounted. Thrown by `PasscodeLedger.checkDelayAndCount()`.
public struct PasscodesStillInFlight: Error, Equatable, Sendable {
    /// Other attempts still being checked.
    public var inFlight: Int
    /// Wrong passcodes in a row counted, those in flight included.
    public var failures: Int
    public var waited: Duration

    /// The one line a run ends with when it gives up.
    public var message: String {
        let waited = PasscodeDelays.describe(waited)
        return inFlight == 1
            ? "Another passcode attempt was still being checked after \(waited): try again when it has finished."
            : "\(inFlight) other passcode attempts were still being checked after \(waited): try again when they have finished."
    }

    /// The one line a run says when it starts to wait.
    public static func waitingNotice(_ inFlight: Int) -> String {
        inFlight == 1
            ? "Waiting for another passcode attempt to be checked."
            : "Waiting for \(inFlight) other passcode attempts to be checked."
    }
}
