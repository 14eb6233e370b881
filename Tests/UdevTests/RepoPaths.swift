import Foundation

/// Paths inside the repository, found from this file's own location so the tests run from any
/// working directory.
enum RepoPaths {
    /// `Tests/UdevTests/RepoPaths.swift` → the repository root.
    static func root(_ filePath: String = #filePath) -> URL {
        URL(fileURLWithPath: filePath)
            .deletingLastPathComponent()  // UdevTests
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()
    }

    static var generator: URL { root().appendingPathComponent("udev/generate-rules.py") }
    static var uaccessRules: URL { root().appendingPathComponent("udev/70-fingerlock.rules") }
    static var plugdevRules: URL { root().appendingPathComponent("udev/70-fingerlock-plugdev.rules") }
    static var systemRules: URL { root().appendingPathComponent("udev/70-fingerlock-system.rules") }
    static var serviceUnit: URL { root().appendingPathComponent("systemd/fingerlockd.service") }
    static var sysusers: URL { root().appendingPathComponent("systemd/fingerlockd.sysusers") }
    static var polkitRule: URL { root().appendingPathComponent("polkit/50-fingerlockd-fprintd.rules") }

    /// libfprint's hwdb as installed by libfprint-2-2.
    static let installedHwdb = "/lib/udev/hwdb.d/60-autosuspend-libfprint-2.hwdb"
}
