import Auth
import TrustedPlatform

/// The `tpm` object of `status --json` and `tpm status --json`. Every key always there.
struct TPMStatusJSON: Encodable {
    var bound: Bool
    var pcr7: Bool
    /// Where the TPM is asked: this process's TCTI, or "fingerlockd" in system mode.
    var location: String
    var reachable: Bool?
    var problem: String?
    var failedTries: Int?
    var maximumTries: Int?
    var intervalSeconds: Int?
    var inLockout: Bool?
    var lockoutPasswordSet: Bool?

    init(_ report: TPMBindingManagement.Report) {
        bound = report.binding != nil
        pcr7 = report.binding?.pcr7 ?? false
        location = report.heldByService ? "fingerlockd" : report.location
        if report.lockout != nil || report.problem != nil { reachable = report.lockout != nil }
        problem = report.problem
        failedTries = report.lockout?.failedTries
        maximumTries = report.lockout?.maximumTries
        intervalSeconds = report.lockout?.interval
        inLockout = report.lockout?.inLockout
        lockoutPasswordSet = report.lockout?.lockoutPasswordSet
    }

    enum CodingKeys: String, CodingKey {
        case bound, pcr7, location, reachable, problem, failedTries, maximumTries, intervalSeconds, inLockout
        case lockoutPasswordSet
    }

    /// Writes nulls too: a synthesized encoder would leave the key out.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(bound, forKey: .bound)
        try container.encode(pcr7, forKey: .pcr7)
        try container.encode(location, forKey: .location)
        try container.encode(reachable, forKey: .reachable)
        try container.encode(problem, forKey: .problem)
        try container.encode(failedTries, forKey: .failedTries)
        try container.encode(maximumTries, forKey: .maximumTries)
        try container.encode(intervalSeconds, forKey: .intervalSeconds)
        try container.encode(inLockout, forKey: .inLockout)
        try container.encode(lockoutPasswordSet, forKey: .lockoutPasswordSet)
    }

    /// The human line(s).
    static func lines(_ report: TPMBindingManagement.Report) -> [String] {
        guard let binding = report.binding else {
            // `tpm enable` is advised only where a TPM may answer: not when it was asked and none did.
            guard report.problem == nil else { return ["tpm: the passcode is not bound to a TPM (none answers here)"] }
            return ["tpm: the passcode is not bound to a TPM (`fingerlock tpm enable` binds it)"]
        }
        let pcr = binding.pcr7 ? " and to PCR 7 (the Secure Boot state)" : ""
        if report.heldByService {
            return ["tpm: the passcode is bound to the TPM fingerlockd uses\(pcr)"]
        }
        var lines = ["tpm: the passcode is bound to the TPM at \(report.location)\(pcr)"]
        if let problem = report.problem {
            lines.append("tpm state: not reachable: \(problem)")
        } else if let state = report.lockout {
            lines.append(stateLine(state))
        }
        return lines
    }

    static func stateLine(_ state: TPMLockoutState) -> String {
        if state.inLockout {
            return "tpm state: in dictionary-attack lockout (\(state.failedTries) of \(state.maximumTries) failures); it refuses"
                + " the passcode for about \(TPMLockoutState.describe(max(state.interval, 1)))"
        }
        let forget = state.interval > 0 ? ", forgets one every \(TPMLockoutState.describe(state.interval))" : ""
        let password = state.lockoutPasswordSet ? "" : "; no lockout password is set, so anyone who can open the TPM can reset its counter"
        return "tpm state: \(state.failedTries) of \(state.maximumTries) failed authorizations counted\(forget)\(password)"
    }
}
