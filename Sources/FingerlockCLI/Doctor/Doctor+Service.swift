import Auth
import FingerlockProtocol
import FingerlockServiceClient
import Foundation
import Vault

/// fingerlockd: for a system-mode vault every passcode unlock needs it, so a problem is an error; for
/// a user-mode vault it is reported only when its socket exists, and a problem is a warning.
extension Doctor {
    static let serviceCheck = "service"
    /// How to start fingerlockd here: its socket unit under systemd, else the guide for a machine without.
    static func startService(systemd: Bool) -> String {
        (systemd
            ? "sudo systemctl enable --now fingerlockd.socket (after sudo make install)"
            : "this machine runs without systemd: start fingerlockd as \(SystemServiceClient.noSystemdGuide) says")
            + ", or point --socket (FINGERLOCK_SOCKET) at the running service"
    }

    /// How to restart it.
    static func restart(systemd: Bool) -> String {
        systemd
            ? "sudo systemctl restart fingerlockd.socket fingerlockd.service"
            : "restart fingerlockd as \(SystemServiceClient.noSystemdGuide) says"
    }

    func serviceFindings() -> [DoctorFinding] {
        guard let target = dependencies.service else { return [] }
        let systemMode = target.vaultMode() == .system
        let path = target.socketPath
        let startService = Self.startService(systemd: target.systemd)
        let restart = Self.restart(systemd: target.systemd)
        let problem: (String, String) -> DoctorFinding = { message, fix in
            systemMode
                ? .error(Self.serviceCheck, message + " This vault is in system mode: its passcode needs the service.", fix: fix)
                : .warning(Self.serviceCheck, message, fix: fix)
        }

        let owner: UInt32
        switch ServiceSocket(path: path).expectedServiceUID(caller: dependencies.user.uid) {
        case .success(let uid): owner = uid
        case .failure(.missing):
            return systemMode ? [problem("No fingerlockd socket at \(path).", startService)] : []
        case .failure(.badOwner(let uid)) where uid == dependencies.user.uid:
            return [
                problem(
                    "\(path) belongs to you (uid \(uid)): any process of yours could pose as the service.",
                    "remove it and use the service's own socket (\(ServiceInterface.defaultSocketPath))")
            ]
        case .failure(let refused):
            return [problem("\(path) is refused: \(refused.reason).", "use the service's own socket (\(ServiceInterface.defaultSocketPath))")]
        }

        let client: ServiceClient
        do {
            client = try ServiceClient(socketPath: path, timeout: target.timeout)
        } catch {
            return [problem("Nothing answers at \(path) (\(Self.describe(error))).", startService)]
        }
        guard client.peerUID == owner else {
            let peer = client.peerUID.map { "uid \($0)" } ?? "an unknown user"
            return [
                problem(
                    "SO_PEERCRED says \(path) is served by \(peer), but the socket file belongs to uid \(owner): "
                        + "something may be posing as the service.",
                    "stop whatever listens there and restart the service (\(restart))")
            ]
        }
        let info: VarlinkParameters.Info
        do {
            info = try client.info()
        } catch {
            return [problem("The service at \(path) did not answer GetInfo (\(Self.describe(error))).", restart)]
        }
        guard info.interfaces.contains(ServiceInterface.name) else {
            return [
                problem(
                    "\(path) is served by \(info.product) \(info.version), which does not offer \(ServiceInterface.name).",
                    "point --socket (FINGERLOCK_SOCKET) at fingerlockd")
            ]
        }
        let spoken = Self.protocolVersion(in: info.version)
        guard spoken == ServiceInterface.protocolVersion else {
            let theirs = spoken.map { "protocol \($0)" } ?? "an unknown protocol (\(info.version))"
            return [
                problem(
                    "\(info.product) at \(path) speaks \(theirs); this fingerlock speaks protocol "
                        + "\(ServiceInterface.protocolVersion).",
                    "install fingerlock and fingerlockd from the same source (sudo make install), then " + restart)
            ]
        }
        let answered =
            "\(info.product) \(info.version) answers at \(path) as uid \(owner) (the socket's owner, SO_PEERCRED agrees)"
        guard systemMode else {
            return [
                .ok(Self.serviceCheck, answered + "; this vault is in user mode and does not use it (`fingerlock system enable`).")
            ]
        }
        do {
            guard try target.vaultStatus().registered else {
                return [
                    .error(
                        Self.serviceCheck,
                        answered + ", but it has no secret for this vault, so the passcode cannot open it.",
                        fix: "fingerlock passcode reset (with the recovery key) puts the vault back in user mode")
                ]
            }
        } catch {
            return [problem(answered + ", but asking it about this vault failed: \(error)", restart)]
        }
        return [.ok(Self.serviceCheck, answered + " and holds this vault's secret.")]
    }

    /// fingerlockd reports `VERSION (protocol N)` in GetInfo's version.
    static func protocolVersion(in version: String) -> Int? {
        ServiceIdentity.protocolVersion(in: version)
    }

    static func describe(_ error: ServiceClientError) -> String {
        switch error {
        case .unreachable(let why): why
        case .timedOut: "no answer in time"
        case .protocolViolation(let why): why
        case .notTheService(let why): why
        case .service(let failure): failure.name
        }
    }
}
