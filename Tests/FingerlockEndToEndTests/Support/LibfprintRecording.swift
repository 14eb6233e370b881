import FingerlockCLITestSupport
import Foundation

/// libfprint's own recordings of real USB readers, from its repository at tag v1.94.5 (the version
/// Debian bookworm ships): `tests/<driver>/custom.pcapng` (the USB traffic) and `tests/<driver>/device`
/// (the device's sysfs description), part of libfprint, LGPL-2.1-or-later, copyright the libfprint
/// authors. umockdev replays them under the real libfprint.
///
/// They are not kept in this repository: they are looked for in the directory
/// `FINGERLOCK_LIBFPRINT_RECORDINGS` names, else in `shared/testdata/libfprint-recordings` beside the
/// checkout (the shared folder CI copies there), as `<driver>/custom.pcapng` and `<driver>/device`.
struct LibfprintRecording {
    let driver: String
    let capture: USBCapture
    /// The `device` file umockdev builds the device from.
    let device: URL
    /// The device's sysfs path, the first line of `device` (`P: /devices/…`), under /sys.
    let sysfsPath: String

    static let umockdevRun = "/usr/bin/umockdev-run"

    static var directory: URL {
        if let named = ProcessInfo.processInfo.environment["FINGERLOCK_LIBFPRINT_RECORDINGS"], !named.isEmpty {
            return URL(fileURLWithPath: named)
        }
        // Tests/FingerlockEndToEndTests/Support/ → the checkout → beside it.
        return URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("shared/testdata/libfprint-recordings")
    }

    /// Whether the recordings of every driver in `drivers` are there.
    static func available(_ drivers: String...) -> Bool {
        drivers.allSatisfy { driver in
            ["custom.pcapng", "device"].allSatisfy {
                FileManager.default.fileExists(atPath: directory.appendingPathComponent("\(driver)/\($0)").path)
            }
        }
    }

    init(_ driver: String) throws {
        self.driver = driver
        let folder = Self.directory.appendingPathComponent(driver)
        capture = try USBCapture(contentsOf: folder.appendingPathComponent("custom.pcapng"))
        device = folder.appendingPathComponent("device")
        let firstLine = try String(contentsOf: device, encoding: .utf8).prefix { $0 != "\n" }
        guard firstLine.hasPrefix("P: ") else {
            throw USBCapture.Malformed(description: "\(device.path) does not start with the device's path")
        }
        sysfsPath = "/sys" + firstLine.dropFirst(3)
    }

    /// The environment libfprint needs for a replay: only this driver, and the fixed random part of the
    /// user id the recordings were made with.
    var environment: [String: String] {
        ["FP_DRIVERS_WHITELIST": driver, "FP_DEVICE_EMULATION": "1"]
    }

    /// Writes `replay` into `folder` and returns the command that runs a program against it.
    func launcher(replaying replay: USBCapture, in folder: URL, named name: String) throws -> [String] {
        let file = folder.appendingPathComponent("\(driver)-\(name).pcapng")
        try replay.write(to: file)
        return [Self.umockdevRun, "-d", device.path, "-p", "\(sysfsPath)=\(file.path)", "--"]
    }
}
