import Auth
import Foundation
import TrustedPlatform

/// The passcode's TPM binding: in user mode the TPM this process asks (present, reachable, its
/// lockout state, whether it still opens the slot); in system mode fingerlockd's, not asked here.
extension Doctor {
    func tpmFinding(_ report: TPMBindingManagement.Report) -> DoctorFinding {
        let check = "tpm"
        if report.heldByService {
            return .ok(
                check,
                report.binding == nil
                    ? "System mode: the passcode is not bound to a TPM (`fingerlock tpm enable` has fingerlockd bind it to its TPM)."
                    : "System mode: the passcode is bound to the TPM fingerlockd uses.")
        }
        let counted = report.lockout.map { " " + TPMStatusJSON.stateLine($0).replacingOccurrences(of: "tpm state: ", with: "TPM: ") + "." } ?? ""
        guard let binding = report.binding else {
            if let problem = report.problem {
                if problem.contains("not open to you") {
                    return .warning(
                        check, "A TPM is there but this user may not open it (\(problem)); the passcode is guarded by software only.",
                        fix: "sudo usermod -aG tss $USER, log in again, then: fingerlock tpm enable")
                }
                return .ok(check, problem + " The passcode is guarded by software only.")
            }
            return .ok(
                check,
                "A TPM answers at \(report.location), but the passcode is not bound to it (`fingerlock tpm enable` binds it,"
                    + " so a stolen disk cannot be guessed offline).\(counted)")
        }
        let pcr = binding.pcr7 ? " and PCR 7" : ""
        if let problem = report.problem {
            return .error(
                check, "The passcode is bound to a TPM\(pcr), but it cannot be used here: \(problem)",
                fix: "fix the TPM's access, or open the vault with the recovery key: fingerlock passcode reset")
        }
        if let state = report.lockout, state.inLockout || state.refusal != nil {
            return .warning(
                check, "The passcode is bound to the TPM\(pcr) at \(report.location).\(counted)",
                fix: "wait for the TPM to forget failures, or open the vault with the recovery key: fingerlock passcode reset")
        }
        return .ok(check, "The passcode is bound to the TPM\(pcr) at \(report.location).\(counted)")
    }
}
