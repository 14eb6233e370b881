public import Fingerprint

/// Whose a print on a reader's own storage is. Match-on-chip readers keep every program's prints on
/// one chip: fingerlock's (of this vault or another) next to fprintd's, which may be the desktop login.
public enum StoredPrintOwner: Sendable, Equatable {
    /// One of this vault's sealed prints.
    case thisVault(Finger)
    /// Labelled with this vault's tag but not sealed in it: left on the chip by an interrupted
    /// enrollment or a `forget` that could not reach the reader. Nothing uses it.
    case leftOver
    /// Enrolled by fingerlock for another vault; `tag` names that vault when the reader kept it.
    case otherVault(tag: String?)
    /// Enrolled by something else (fprintd, a vendor tool); `username` when the print carries one.
    case foreign(username: String?)

    /// Stable names for `storage list --json`.
    public var kind: String {
        switch self {
        case .thisVault: "this-vault"
        case .leftOver: "left-over"
        case .otherVault: "other-vault"
        case .foreign: "foreign"
        }
    }
}
