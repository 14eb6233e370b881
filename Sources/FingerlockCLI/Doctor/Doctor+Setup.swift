import Auth
import AuthCore
import Fingerprint

/// The passcode and enrolled-fingers findings: whether a vault exists and, when its key is cached,
/// which fingers it has (doctor never asks for the passcode).
extension Doctor {

    /// The passcode and enrolled-fingers findings, and whether the vault takes fprintd's fingers.
    func setupFindings() async -> (findings: [DoctorFinding], takesFprintd: Bool, accepted: AcceptedFingers?) {
        guard let setupStatus = dependencies.setupStatus else {
            return (
                [
                    .warning(
                        "passcode", "The vault was not checked (not wired in this build).", fix: "run: fingerlock fingers")
                ], false, nil
            )
        }
        let status: SetupStatus
        do {
            status = try await setupStatus()
        } catch {
            return (
                [
                    .error(
                        "passcode", "The vault cannot be read: \(error)",
                        fix: "fix what the message says (see the data-directory finding)")
                ], false, nil
            )
        }
        var findings: [DoctorFinding] = []
        if status.passcodeSet {
            findings.append(.ok("passcode", "A passcode is set."))
        } else {
            findings.append(
                .error(
                    "passcode", "No passcode is set, so there is no vault to unlock yet.",
                    fix: "fingerlock passcode set"))
        }
        if status.fingersUnknown {
            findings.append(
                .warning(
                    "enrolled", "The vault is locked, so the enrolled fingers (sealed in it) were not read.",
                    fix: "fingerlock unlock, then fingerlock doctor"))
        } else if status.enrolledFingers.isEmpty {
            findings.append(
                .error(
                    "enrolled", "No finger is enrolled.",
                    fix: status.passcodeSet
                        ? "fingerlock enroll right-index-finger"
                        : "fingerlock passcode set, then fingerlock enroll right-index-finger"))
        } else {
            let count = status.enrolledFingers.count
            findings.append(
                .ok(
                    "enrolled",
                    "\(count) finger\(count == 1 ? "" : "s") enrolled: "
                        + "\(status.enrolledFingers.joined(separator: ", "))."
                ))
        }
        let fprintdReader = " on \(ReaderSelector.fprintdKeyword):"
        return (findings, status.enrolledFingers.contains { $0.contains(fprintdReader) }, status.acceptedFprintdFingers)
    }
}
