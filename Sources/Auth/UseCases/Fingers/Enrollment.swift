public import AuthCore
public import Fingerprint
public import Foundation
import Vault

/// Enrolling and forgetting fingers, and listing them: enrolling and forgetting need the passcode
/// (as on iOS and with fprintd), never a touch or a key cached by one, so nobody changes the enrolled
/// set behind the user's back (user mode's `enroll` takes a passcode given within `reuse-window`,
/// e.g. at `passcode set` just before). Where the fingers live is the custody's business.
public struct Enrollment: Sendable {
    /// fprintd's fingers are asked of the user's own fprintd client, in either mode.
    let environment: AuthEnvironment
    /// The vault's custody, held by the environment for the command.
    var custody: any KeyCustody { environment.custody }

    public init(_ environment: AuthEnvironment) {
        self.environment = environment
    }

    /// What enrollment reports as it goes.
    public enum Update: Sendable {
        /// The passcode was right and the reader is ready: scanning starts.
        case starting(ReaderInfo)
        case progress(EnrollEvent)
    }

    /// One forgotten print, and what became of a copy on the reader's own storage.
    public struct ForgottenPrint: Equatable, Sendable {
        public enum OnReader: Equatable, Sendable {
            /// The reader keeps no prints, or the copy was deleted from it.
            case nothingLeft
            /// The reader is not connected: its copy stays there, but unlocks nothing any more.
            case leftOnDisconnectedReader
        }
        public var finger: Finger
        public var reader: ReaderIdentity
        public var onReader: OnReader
    }

    /// Enrolls `finger` on the reader in effect and seals its template in the vault. A Ctrl-C
    /// (task cancellation) or a reader error saves nothing. `username` is the user's login name; the
    /// print carries it with this vault's tag (``PrintLabel``), so a shared chip can tell whose it is.
    /// A finger already enrolled on this reader is replaced only when `confirmReplacing` agrees (asked
    /// after the passcode, before any touch); otherwise nothing changes.
    public func enroll(
        _ finger: Finger, username: String, confirmReplacing: @Sendable (ListedFinger) async throws -> Bool,
        updates: @escaping @Sendable (Update) -> Void
    ) async throws -> ListedFinger {
        let own = custody.ownFingers
        let target = try await own.enrollingReader()
        let replaced = { (listed: [ListedFinger]) in listed.first { $0.finger == finger && (target == nil || $0.reader == target) } }
        // Known before the passcode (fingerlockd's list, or a cached key): a finger already there is
        // said, and its replacement agreed, before anyone types the passcode for it.
        var agreed: ListedFinger?
        if let known = try await own.enrolledBeforePasscode() {
            try Self.refuseFprintdsFingers(known)
            if let old = replaced(known) { agreed = try await Self.agree(replacing: old, confirmReplacing) }
        }
        return try await own.withPasscode(reason: "enroll a finger", recentOneStands: true) { proven in
            let listed = try await proven.enrolled()
            try Self.refuseFprintdsFingers(listed)
            let old = replaced(listed)
            if let old, old != agreed { _ = try await Self.agree(replacing: old, confirmReplacing) }
            return try await proven.enroll(finger, replacing: old, username: username, updates: updates)
        }
    }

    /// Forgets `finger` (nil: every finger) on the readers `covers` accepts, deleting on-chip copies
    /// from connected readers. Throws `.notFound` when a named finger is not enrolled there.
    public func forget(_ finger: Finger?, covers: @Sendable (ReaderIdentity) -> Bool) async throws -> [ForgottenPrint] {
        let own = custody.ownFingers
        func targets(_ listed: [ListedFinger]) throws -> [ListedFinger] {
            try Self.refuseFprintdsFingers(listed)
            let targets = listed.filter { ($0.finger == finger || finger == nil) && covers($0.reader) }
            if targets.isEmpty, let finger {
                throw AuthError(.notFound, "\(finger) is not enrolled; `fingerlock fingers` lists the enrolled ones.")
            }
            return targets
        }
        // Known before the passcode: a finger that is not there is said without asking for it.
        if let known = try await own.enrolledBeforePasscode() { _ = try targets(known) }
        return try await own.withPasscode(reason: "forget a finger", recentOneStands: false) { proven in
            var forgotten: [ForgottenPrint] = []
            for target in try targets(try await proven.enrolled()) { forgotten.append(try await proven.forget(target)) }
            return forgotten
        }
    }

    /// A vault that takes fprintd's fingers has none of its own to enroll or forget, in either mode.
    static func refuseFprintdsFingers(_ listed: [ListedFinger]) throws {
        guard listed.contains(where: { $0.reader.driver == FprintdDevice.driver }) else { return }
        throw AuthError(
            .invalidInput,
            "This vault takes fprintd's fingers: `fingerlock enroll --reader fprintd FINGER` enrolls one there (your"
                + " desktop's settings remove one); `fingerlock forget --reader fprintd --all` goes back to the vault's own.")
    }

    /// `old` is replaced only when `confirmReplacing` agrees; otherwise nothing changes.
    static func agree(replacing old: ListedFinger, _ confirmReplacing: @Sendable (ListedFinger) async throws -> Bool) async throws
        -> ListedFinger
    {
        guard try await confirmReplacing(old) else {
            throw AuthError(.userCancel, "\(old.finger) stays enrolled as it was; nothing was changed.")
        }
        return old
    }

    /// `enroll --reader fprintd` without a finger: the vault takes the fingers fprintd already has for
    /// the user (the desktop's), after the passcode; a touch then verifies through fprintd. When
    /// fprintd's set changes later, a touch asks the passcode again, which accepts the new set.
    public func acceptFprintdFingers() async throws -> AcceptedFingers {
        try await custody.acceptFprintdFingers(enrolling: nil)
    }

    /// `enroll --reader fprintd FINGER`: fprintd enrolls `finger` for the user, as the desktop's
    /// settings would (polkit asks the login password, at a terminal through the agent the caller
    /// started), then the vault accepts fprintd's fingers as they are. Fingerlock's passcode comes
    /// first, so a wrong one (or none) changes nothing at fprintd. A finger fprintd has already is
    /// deleted there first, only when `confirmReplacing` agrees: if the new enrollment does not
    /// finish (Ctrl-C, an error), fprintd no longer has it, and the error says so.
    public func enrollWithFprintd(
        _ finger: Finger, confirmReplacing: @Sendable (Finger) async throws -> Bool, updates: @escaping @Sendable (Update) -> Void
    ) async throws -> AcceptedFingers {
        try PasscodeUnlock(environment).requirePasscodeSource()
        let source = try await environment.fprintdSource(accepted: nil)
        let enrolled: [EnrolledFinger]
        do { enrolled = try await source.enrolledFingers() } catch { throw AuthError.from(error) }
        let replacing = enrolled.contains { $0.finger == finger }
        if replacing, try await !confirmReplacing(finger) {
            throw AuthError(.userCancel, "\(finger) stays enrolled with fprintd as it was; nothing was changed.")
        }
        return try await custody.acceptFprintdFingers(enrolling: {
            updates(.starting(source.reader))
            do {
                try await source.fprintd.enroll(finger, timeout: SecuritySettings().scanTimeout) { updates(.progress($0)) }
            } catch let unfinished as FprintdEnrollmentUnfinished {
                throw Self.fprintdEnrollmentFailed(unfinished.cause, finger: finger, fingerDeleted: true)
            } catch {
                throw Self.fprintdEnrollmentFailed(error, finger: finger, fingerDeleted: false)
            }
        })
    }

    /// What an enrollment through fprintd that did not finish says: the reason, and whether fprintd's
    /// old print of the finger is gone (deleted first) or still there.
    static func fprintdEnrollmentFailed(_ error: any Error, finger: Finger, fingerDeleted: Bool) -> AuthError {
        let gone =
            fingerDeleted
            ? " fprintd's old \(finger) was deleted first, so fprintd no longer has it: enroll it again"
                + " (`fingerlock enroll --reader fprintd \(finger)`, or your desktop's settings)." : ""
        // Ctrl-C at polkit's password prompt ends the agent, and so the authorization, with a refusal.
        if error is CancellationError || Task.isCancelled {
            return AuthError(
                .userCancel, fingerDeleted ? "Cancelled; the vault is unchanged." + gone : "Cancelled; the vault and fprintd's fingers are unchanged."
            )
        }
        if let error = error as? FingerprintError, error.code == .permissionDenied {
            return AuthError(
                .biometryNotAvailable,
                "fprintd did not let you enroll here (polkit: the login password was refused or its prompt cancelled,"
                    + " or this session may not enroll): enroll \(finger) in your desktop's settings, then run"
                    + " `fingerlock enroll --reader fprintd` (no finger) to make this vault take it." + gone,
                unavailability: .noPermission)
        }
        let mapped = AuthError.from(error)
        return AuthError(mapped.code, mapped.message + gone, unavailability: mapped.unavailability)
    }

    /// `forget --reader fprintd`: the vault stops taking fprintd's fingers (fprintd keeps them for
    /// the desktop); returns the set it had accepted, nil when it took none.
    public func stopAcceptingFprintdFingers() async throws -> AcceptedFingers? {
        try await custody.stopAcceptingFprintdFingers()
    }

    /// An enrolled finger as `fingers` lists it.
    public struct ListedFinger: Equatable, Sendable {
        public var finger: Finger
        public var reader: ReaderIdentity
        /// When it was enrolled; nil where the keeper does not say (fprintd).
        public var enrolled: Date?

        init(finger: Finger, reader: ReaderIdentity, enrolled: Date?) {
            self.finger = finger
            self.reader = reader
            self.enrolled = enrolled
        }

        /// A print sealed in the vault, by its name, reader and date.
        init(_ print: EnrolledPrint) {
            self.init(finger: print.finger, reader: print.reader, enrolled: print.enrolled)
        }
    }

    /// The enrolled fingers, read with the cached key or else the passcode (`fingers`).
    public func enrolledFingers() async throws -> [ListedFinger] {
        try await custody.enrolledFingers()
    }
}
