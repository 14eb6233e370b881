import AuthCore
public import Fingerprint
import SystemBus

/// Enrolling a finger with fprintd, as the desktop's settings do: fprintd keeps the print, and
/// polkit asks for the user's login password (fingerlock's passcode plays no part in it).
extension FprintdClient {
    /// How long a call that may wait for the user to authorize it (polkit's agent asking for the
    /// login password) waits for its answer.
    static let authorizationPatience = Duration.seconds(120)

    /// Enrolls `finger` of the client's user on fprintd's default device, each step reported to
    /// `progress` (`.opened`, `.stage`, `.retry`; never `.enrolled`: fprintd keeps the print). The
    /// finger is deleted first when fprintd has it (fprintd 2.0 refuses to enroll over one, 1.94
    /// replaces it silently), both calls allowing interactive authorization (fprintd 2.0 asks only
    /// then; at a terminal the caller runs a polkit agent). `timeout` bounds each touch. The
    /// enrollment is stopped and the reader released in every case, also on cancellation.
    public func enroll(_ finger: Finger, timeout: Duration, progress: @escaping @Sendable (EnrollEvent) -> Void) async throws {
        let stages = try await device().enrollStages
        // The set changes now: fingers asked ahead are no answer any more.
        forgetPreparedAnswers()
        // Deleted only when fprintd has it: each call may ask the login password again.
        let enrolled = try await enrolledFingers().contains(finger)
        let (bus, path, owner) = try await deviceAndOwner()
        try await claim(bus, path)
        // After the claim: another client's operation that Claim waited for says nothing of this one.
        let inbox = bus.openInbox(from: owner)
        defer { bus.closeInbox() }
        var started = false
        var deleted = false
        do {
            if enrolled {
                try await DetachedThread.run {
                    do {
                        _ = try bus.call(
                            path, "DeleteEnrolledFinger", [.string(finger.rawValue)], replyType: "()", interactive: true,
                            timeout: Self.authorizationPatience)
                    } catch let error as BusCallError where error.name == FprintdError.prefix + "NoEnrolledPrints" {
                        // Gone meanwhile: nothing to delete.
                    } catch let error as BusCallError {
                        throw FprintdError.map(error, during: "enroll", answeredBefore: true)
                    }
                }
                deleted = true
            }
            try await DetachedThread.run {
                do {
                    _ = try bus.call(
                        path, "EnrollStart", [.string(finger.rawValue)], replyType: "()", interactive: true,
                        timeout: Self.authorizationPatience)
                } catch let error as BusCallError {
                    throw FprintdError.map(error, during: "enroll", answeredBefore: true)
                }
            }
            started = true
            progress(.opened(stages: stages))
            try await enrollment(from: inbox, path: path, stages: stages, timeout: timeout, progress: progress)
            await release(bus, path, stopping: "EnrollStop")
        } catch {
            await release(bus, path, stopping: started ? "EnrollStop" : nil)
            throw deleted ? FprintdEnrollmentUnfinished(cause: error) : error
        }
    }

    /// Waits for the enrollment's statuses until it completes; each touch has `timeout`.
    private func enrollment(
        from inbox: AsyncStream<BusSignal>, path: String, stages: Int, timeout: Duration,
        progress: @escaping @Sendable (EnrollEvent) -> Void
    ) async throws {
        var completed = 0
        while true {
            let status = try await nextStatus(from: inbox, path: path, timeout: timeout)
            switch status {
            case "enroll-completed":
                // fprintd reports no stage passed for the last touch: the completion is that stage.
                let total = max(stages, completed + 1)
                progress(.stage(completed: total, total: total))
                return
            case "enroll-stage-passed":
                completed += 1
                progress(.stage(completed: completed, total: max(stages, completed)))
            case "enroll-retry-scan": progress(.retry(.general))
            case "enroll-swipe-too-short": progress(.retry(.tooShort))
            case "enroll-finger-not-centered": progress(.retry(.centerFinger))
            case "enroll-remove-and-retry": progress(.retry(.removeFinger))
            case "enroll-duplicate":
                throw FingerprintError(
                    .duplicate,
                    "fprintd already has this finger, under another finger's name or another user's: nothing was enrolled."
                        + " `fprintd-list $USER` lists your fingers.")
            case "enroll-data-full":
                throw FingerprintError(.storageFull, "The reader's storage is full: delete a finger in your desktop's settings first.")
            case "enroll-disconnected":
                throw FingerprintError(.unplugged, "The reader was disconnected from fprintd during the enrollment.")
            default:
                throw FingerprintError(.deviceError, "fprintd's enrollment failed (\(status)).")
            }
        }
    }

    /// The next `EnrollStatus` on `path`, within `timeout`.
    private func nextStatus(from inbox: AsyncStream<BusSignal>, path: String, timeout: Duration) async throws -> String {
        try await Self.within(timeout) {
            for await signal in inbox {
                if signal.member == "NameOwnerChanged" { throw FprintdError.stopped }
                guard signal.path == path, signal.interface == Self.deviceInterface, signal.member == "EnrollStatus",
                    let status = signal.string(0)
                else { continue }
                return status
            }
            try Task.checkCancellation()
            throw FingerprintError(.deviceError, "fprintd's answer never came.")
        }
    }
}
