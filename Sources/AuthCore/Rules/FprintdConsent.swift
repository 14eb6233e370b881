/// What a proven passcode does for a vault that takes fprintd's fingers, decided here for both
/// modes: the passcode is the owner's consent, so fprintd's set as it is now becomes the accepted
/// one (a touch releases the key only while fprintd's set is the accepted one, since fprintd lets
/// its user add a finger with the login password alone). fprintd not answering never undoes the
/// unlock the passcode made. The hosts ask fprintd and keep the set; this decides and says it.
public enum FprintdConsent: Equatable, Sendable {
    /// fprintd's set is the accepted one: nothing to keep, nothing to say.
    case unchanged
    /// The set to keep as the accepted one, and what changed.
    case accept(AcceptedFingers, AcceptedFingers.Change)
    /// fprintd could not be asked: the accepted set stays as it was, and the unlock stands.
    case notChecked

    /// After the passcode: `accepted` is the set the vault took, `now` fprintd's set (nil when
    /// fprintd could not be asked).
    public static func afterPasscode(accepted: AcceptedFingers, now: AcceptedFingers?) -> FprintdConsent {
        guard let now else { return .notChecked }
        guard let change = accepted.change(to: now) else { return .unchanged }
        return .accept(now, change)
    }

    /// What the user is told when the vault took fprintd's changed set, in both modes (system mode's
    /// service sends `summary`; its client says this).
    public static func told(_ summary: String) -> String {
        "This vault now accepts fprintd's fingers as they are (\(summary))."
    }
}
