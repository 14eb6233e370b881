/// The failed-touch rule, hosted by both modes: a touch is counted as failed before anyone learns
/// its result (so killing the process at a no-match cannot skip it), taken back when it turns out
/// to be no touch at all (a retry hint, a cancelled or failed scan), and the whole count is cleared
/// by a match or a correct passcode. `lockoutThreshold` failures in a row, across invocations, turn
/// fingerprint unlock off until the passcode.
public struct TouchLedger: Sendable {
    /// Consecutive failed touches that lock biometrics until a passcode unlock. The one definition:
    /// user mode, fingerlockd and the CLI's texts all read it here.
    public static let lockoutThreshold = 5

    let attempts: any AttemptStore

    public init(_ attempts: any AttemptStore) {
        self.attempts = attempts
    }

    public static func isLockedOut(_ state: AttemptState) -> Bool {
        state.failedTouches >= lockoutThreshold
    }

    /// Touches left before the lockout, after `failures` in a row.
    public static func touchesLeft(after failures: Int) -> Int {
        max(0, lockoutThreshold - failures)
    }

    public func isLockedOut() throws -> Bool {
        Self.isLockedOut(try attempts.read())
    }

    /// Counts one touch as failed, before its result is known; returns the count with it in.
    @discardableResult
    public func count() throws -> Int {
        try attempts.update { state -> Int in
            state.failedTouches += 1
            return state.failedTouches
        }
    }

    /// Takes back one touch `count()` counted (it was no touch after all).
    public func undo() throws {
        try attempts.update { $0.failedTouches = max(0, $0.failedTouches - 1) }
    }

    /// A finger matched: the count starts again.
    public func matched() throws {
        try attempts.update { $0.failedTouches = 0 }
    }

    /// Counts kept elsewhere (the user-mode file when a vault moves into fingerlockd) only ever
    /// raise this count; returns whether it is now a lockout.
    @discardableResult
    public func raise(to carried: Int) throws -> Bool {
        try attempts.update { state -> Bool in
            state.failedTouches = max(state.failedTouches, carried)
            return Self.isLockedOut(state)
        }
    }
}
