import Auth
import AuthCore
import Fingerprint
import Vault

/// The human `status`: one line per fact.
enum StatusText {
    /// `socket`: where fingerlockd was asked (system mode).
    static func lines(_ status: VaultStatus, socket: String) -> [String] {
        guard status.setUp else {
            return ["vault: not set up; `fingerlock passcode set` creates it", "mode: \(status.mode)"]
        }
        var lines: [String] = []
        let kind = status.kind.map { $0 == .test ? " (a test vault: simulated and virtual readers only)" : " (for real readers)" } ?? ""
        lines.append("vault: set up\(kind)")
        if case .unreachable = status.service {
            lines.append("state: unknown: fingerlockd holds this vault's key and could not be asked")
        } else if let reason = status.keyCacheUnavailable {
            lines.append("state: locked; no key can be cached here, so every unlock needs the passcode (\(reason))")
        } else if status.unlocked {
            let time = status.keyExpiresIn.map { " for about \(PasscodeDelays.describe($0)) more" } ?? ""
            // Locked out, a touch opens nothing: only the passcode turns fingerprints back on.
            lines.append(
                status.lockedOut
                    ? "state: unlocked\(time), but fingerprints are locked out: the passcode opens the vault"
                    : "state: unlocked\(time): a touch opens the vault")
        } else {
            lines.append("state: locked: the passcode is needed before a touch unlocks")
        }
        if let left = status.reuseWindowLeft {
            lines.append("reuse window: \(PasscodeDelays.describe(left)) left without a touch")
        }
        if status.lockedOut {
            lines.append("fingerprint: locked out after \(status.failedTouches) failed touches; the passcode turns it back on")
        } else if status.failedTouches > 0 {
            let touches = status.failedTouches == 1 ? "1 failed touch" : "\(status.failedTouches) failed touches in a row"
            lines.append("fingerprint: \(touches) (lockout at \(TouchLedger.lockoutThreshold))")
        }
        if let service = status.service { lines.append(serviceLine(service, socket: socket)) }
        let countedBy = status.service.map { if case .answered = $0 { " (counted by fingerlockd)" } else { "" } } ?? ""
        if let delay = status.passcodeDelayLeft {
            lines.append(
                "passcode: \(status.failedPasscodes) wrong in a row\(countedBy); next attempt in \(PasscodeDelays.describe(delay))")
        } else if status.failedPasscodes > 0 {
            lines.append("passcode: \(status.failedPasscodes) wrong in a row\(countedBy)")
        }
        if let fingers = status.enrolledFingers {
            if fingers.isEmpty {
                lines.append("fingers: none enrolled; `fingerlock enroll` adds one")
            } else {
                for (reader, group) in Dictionary(grouping: fingers, by: \.reader).sorted(by: { $0.key < $1.key }) {
                    lines.append("fingers on \(reader): \(group.map(\.finger.rawValue).joined(separator: ", "))")
                }
            }
        } else {
            lines.append("fingers: sealed in the vault while it is locked")
        }
        lines.append("mode: \(status.mode)")
        return lines
    }

    static func serviceLine(_ service: VaultStatus.Service, socket: String) -> String {
        switch service {
        case .unreachable(let why):
            return "service: " + why
        case .answered(let known) where !known.registered:
            return "service: fingerlockd at \(socket) has no secret for this vault, so the passcode cannot open it; "
                + "`fingerlock passcode reset` (with the recovery key) puts it back in user mode"
        case .answered(let known) where known.unlocked:
            return "service: fingerlockd at \(socket) holds this vault's secret and its key, "
                + "for about \(PasscodeDelays.describe(.seconds(known.unlockedSeconds))) more"
        case .answered:
            return "service: fingerlockd at \(socket) holds this vault's secret; no key is cached there"
        }
    }
}
