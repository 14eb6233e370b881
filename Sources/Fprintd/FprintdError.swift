import Fingerprint
import SystemBus

/// fprintd's D-Bus errors as the reader layer's errors, each with the one line a user needs.
enum FprintdError {
    static let prefix = "net.reactivated.Fprint.Error."

    /// fprintd went away during an operation (seen as `NameOwnerChanged`, or a call it never answered).
    static let stopped = FingerprintError(.deviceError, "fprintd stopped during the scan; try again.")

    /// - Parameter answeredBefore: fprintd answered earlier in the same operation, so its name missing
    ///   from the bus now means it stopped, not that it is not installed.
    static func map(_ error: BusCallError, during what: String, answeredBefore: Bool = false) -> FingerprintError {
        if error.serviceMissing && answeredBefore { return stopped }
        if error.serviceMissing {
            return FingerprintError(
                .noReader, "fprintd is not installed or not running (nothing answers as net.reactivated.Fprint on the system bus).")
        }
        guard error.name.hasPrefix(prefix) else {
            if error.name == "org.freedesktop.DBus.Error.NoReply" && error.message.contains("disconnected") {
                // fprintd left the bus (crashed, restarted, stopped) before it answered.
                return stopped
            }
            if error.name == "org.freedesktop.DBus.Error.NoReply" || error.name.isEmpty {
                return FingerprintError(.deviceError, "fprintd did not answer (\(what)): \(error.message)")
            }
            return FingerprintError(.deviceError, "fprintd failed (\(what)): \(error.name): \(error.message)")
        }
        switch String(error.name.dropFirst(prefix.count)) {
        case "NoSuchDevice":
            return FingerprintError(.noReader, "fprintd has no fingerprint reader.")
        case "PermissionDenied":
            let action = error.message.split(separator: " ").last.map(String.init) ?? "its polkit action"
            return FingerprintError(
                .permissionDenied,
                "fprintd refused to \(what): polkit does not allow \(action) here (an active local desktop session may"
                    + " verify; an ssh or other remote session may not; fingerlockd may only with the polkit rule"
                    + " 50-fingerlockd-fprintd.rules installed).")
        case "AlreadyInUse":
            return FingerprintError(
                .busy, "The reader is in use by another program through fprintd (a lock screen, sudo, a login prompt).")
        case "NoEnrolledPrints":
            return FingerprintError(
                .printNotFound, "fprintd has no finger enrolled for you: enroll one in your desktop's settings or with `fprintd-enroll`.")
        case "InvalidFingername":
            return FingerprintError(.notSupported, "fprintd does not know that finger name.")
        case "ClaimDevice":
            return FingerprintError(.deviceError, "fprintd's reader was not claimed for \(what).")
        default:
            return FingerprintError(.deviceError, "fprintd failed (\(what)): \(error.message)")
        }
    }
}
