import AuthCore
import Fingerprint
import Foundation

/// Where a vault's own fingers (not fprintd's) are enrolled and forgotten: the templates sealed in
/// the vault with the reader in this process (user mode), or fingerlockd's store (system mode). A
/// custody gives the steps; `Enrollment` drives them in one flow for both modes: what is known
/// before the passcode, the passcode, then the change made with its proof.
protocol OwnFingers: Sendable {
    /// The reader a new finger is enrolled on; nil: the keeper's only reader (fingerlockd's).
    /// Asked before the passcode, so nobody types one for a reader that is not there.
    func enrollingReader() async throws -> ReaderIdentity?

    /// The enrolled fingers when they are known before the passcode; nil when they are sealed in
    /// the vault and no key is at hand.
    func enrolledBeforePasscode() async throws -> [Enrollment.ListedFinger]?

    /// Proves the passcode (asked for `reason`), then runs `body` with the fingers open to change.
    /// Nothing changes when the passcode is wrong. `recentOneStands`: a passcode given within
    /// `reuse-window` (right after `passcode set`) stands where the keeper lets it (user mode).
    func withPasscode<T: Sendable>(reason: String, recentOneStands: Bool, _ body: (any ProvenFingers) async throws -> T)
        async throws -> T
}

/// A vault's own fingers after the passcode: listed, enrolled, forgotten.
protocol ProvenFingers: Sendable {
    /// Every enrolled finger, with fprintd's accepted set when the vault takes fprintd's instead.
    func enrolled() async throws -> [Enrollment.ListedFinger]

    /// Scans `finger` and keeps it, in place of `replacing` (the same finger on the same reader,
    /// agreed to). A Ctrl-C or a reader error keeps nothing.
    func enroll(
        _ finger: Finger, replacing: Enrollment.ListedFinger?, username: String,
        updates: @escaping @Sendable (Enrollment.Update) -> Void
    ) async throws -> Enrollment.ListedFinger

    /// Forgets `finger`, with the copy a connected reader keeps of it.
    func forget(_ finger: Enrollment.ListedFinger) async throws -> Enrollment.ForgottenPrint
}
