import AuthCore
import Fingerprint

/// What fprintd has for the user: whether it answers, its reader, the fingers it keeps for them, and
/// whether this vault takes them (and still takes them as they are: `accepted`, the set it accepted,
/// when known without the passcode).
extension Doctor {
    func fprintdFingersFinding(vaultTakesThem: Bool, accepted: AcceptedFingers?) async -> DoctorFinding? {
        guard let fprintd = dependencies.fprintd else { return nil }
        let check = "fprintd-fingers"
        let device: FprintdDevice
        let fingers: [Finger]
        do {
            device = try await fprintd.device()
            fingers = try await fprintd.enrolledFingers()
        } catch let error as FingerprintError {
            switch error.code {
            case .noReader where vaultTakesThem:
                return .error(check, "This vault takes fprintd's fingers, but: \(error.message)", fix: "sudo apt install fprintd")
            case .noReader:
                return .ok(check, error.message + " fingerlock uses the reader itself.")
            case .permissionDenied:
                return .warning(
                    check, error.message,
                    fix: "run fingerlock in your desktop session (polkit lets an active local session verify)")
            default:
                return (vaultTakesThem ? DoctorFinding.error : DoctorFinding.warning)(check, error.message, nil)
            }
        } catch {
            return .warning(check, "fprintd could not be asked: \(error)", fix: nil)
        }
        let names = fingers.map(\.rawValue).joined(separator: ", ")
        if vaultTakesThem {
            guard !fingers.isEmpty else {
                return .error(
                    check, "This vault takes fprintd's fingers, and fprintd has none for you on \(device.name).",
                    fix: "enroll one in your desktop's settings (or fprintd-enroll), then unlock with the passcode")
            }
            if let change = accepted?.change(to: AcceptedFingers(device: device.name, fingers: fingers)) {
                return .warning(
                    check,
                    "fprintd's fingers changed since this vault accepted them (\(change.summary)): a touch asks for the"
                        + " passcode, which accepts them as they are.",
                    fix: "fingerlock unlock (or forget --reader fprintd --all if the change was not yours)")
            }
            return .ok(check, "This vault takes fprintd's fingers on \(device.name): \(names).")
        }
        guard !fingers.isEmpty else { return .ok(check, "fprintd's reader \(device.name) has no finger enrolled for you.") }
        return .warning(
            check, "fprintd has fingers for you on \(device.name) (\(names)), and this vault does not take them.",
            fix: "fingerlock enroll --reader fprintd (and FINGERLOCK_READER=fprintd for later commands)")
    }
}
