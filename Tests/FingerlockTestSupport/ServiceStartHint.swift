import Foundation

/// What fingerlock says to start fingerlockd on this machine, as the built binary decides it: the
/// systemd unit where systemd runs (`/run/systemd/system`), else the guide for a machine without.
public enum ServiceStartHint {
    public static var here: String {
        FileManager.default.fileExists(atPath: "/run/systemd/system")
            ? "systemctl enable --now fingerlockd.socket" : "/usr/share/doc/fingerlock/system-mode-without-systemd.md"
    }

    /// How it says to restart fingerlockd here.
    public static var restartHere: String {
        FileManager.default.fileExists(atPath: "/run/systemd/system")
            ? "systemctl restart fingerlockd.socket" : "restart fingerlockd as /usr/share/doc/fingerlock/system-mode-without-systemd.md says"
    }
}
