import Foundation

/// Which USB ids libfprint supports, read at run time from the hwdb libfprint-2-2 installs
/// (`/lib/udev/hwdb.d/60-autosuspend-libfprint-2.hwdb`), so a libfprint upgrade is picked up
/// without rebuilding fingerlock.
public struct LibfprintHwdb: Sendable, Equatable {
    public static let defaultPath = "/lib/udev/hwdb.d/60-autosuspend-libfprint-2.hwdb"

    /// Supported ids and the driver that handles each.
    public var supported: [USBID: String]
    /// Ids libfprint lists as known but unsupported.
    public var unsupported: Set<USBID>

    public init(supported: [USBID: String], unsupported: Set<USBID>) {
        self.supported = supported
        self.unsupported = unsupported
    }

    public init(contentsOfFile path: String) throws {
        self.init(text: try String(contentsOfFile: path, encoding: .utf8))
    }

    /// Sections start with `# Supported by libfprint driver NAME` or `# Known unsupported devices`;
    /// match lines look like `usb:v06CBp00BD*`. Anything else (properties, other comments) is skipped:
    /// a diagnosis should not fail on a line it does not need.
    public init(text: String) {
        var supported: [USBID: String] = [:]
        var unsupported: Set<USBID> = []
        var driver: String?
        var inUnsupported = false
        let driverPrefix = "# Supported by libfprint driver "
        for line in text.split(separator: "\n") {
            if line.hasPrefix(driverPrefix) {
                driver = line.dropFirst(driverPrefix.count).trimmingCharacters(in: .whitespaces)
                inUnsupported = false
                continue
            }
            if line.hasPrefix("# Known unsupported devices") {
                driver = nil
                inUnsupported = true
                continue
            }
            guard line.hasPrefix("usb:v"), line.count >= 14 else { continue }
            let body = line.dropFirst(5)
            guard body.dropFirst(4).first == "p",
                let id = USBID(vendor: body.prefix(4), product: body.dropFirst(5).prefix(4))
            else { continue }
            if inUnsupported {
                unsupported.insert(id)
            } else if let driver {
                supported[id] = min(supported[id] ?? driver, driver)
            }
        }
        self.init(supported: supported, unsupported: unsupported)
    }
}
