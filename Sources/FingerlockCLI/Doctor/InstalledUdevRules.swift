import Foundation

/// fingerlock's udev rules as installed on this system (`70-fingerlock.rules`).
struct InstalledUdevRules: Equatable, Sendable {
    enum Variant: String, Sendable {
        /// `TAG+="uaccess"`: logind gives the active local session an ACL.
        case uaccess
        /// `GROUP="plugdev", MODE="0660"`: members of plugdev may open the reader.
        case plugdev
        /// `GROUP="fingerlockd", MODE="0660"` (system mode): only the service may open the reader.
        case system
    }

    /// The group the system-mode rules give the reader to: the service's (systemd/fingerlockd.sysusers).
    static let serviceGroup = "fingerlockd"

    static let fileName = "70-fingerlock.rules"
    /// Where udev reads rules, in its order of precedence.
    static let defaultDirectories = [
        "/etc/udev/rules.d", "/run/udev/rules.d", "/usr/lib/udev/rules.d", "/lib/udev/rules.d",
    ]

    var path: String
    var variant: Variant
    var ids: Set<USBID>

    /// The first `70-fingerlock.rules` in `directories` (an earlier directory overrides a later one
    /// with the same file name, as in udev), or nil when none is installed.
    static func find(in directories: [String]) -> InstalledUdevRules? {
        for directory in directories {
            let path = directory + "/" + fileName
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { continue }
            return parse(text, path: path)
        }
        return nil
    }

    static func parse(_ text: String, path: String) -> InstalledUdevRules {
        var ids: Set<USBID> = []
        var variant = Variant.uaccess
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let vendor = value(of: "ATTRS{idVendor}==", in: line),
                let product = value(of: "ATTRS{idProduct}==", in: line),
                let id = USBID(vendor: vendor, product: product)
            else { continue }
            ids.insert(id)
            if line.contains("GROUP=") && !line.contains("uaccess") {
                variant = value(of: "GROUP=", in: line) == Substring(serviceGroup) ? .system : .plugdev
            }
        }
        return InstalledUdevRules(path: path, variant: variant, ids: ids)
    }

    private static func value(of key: String, in line: Substring) -> Substring? {
        guard let range = line.range(of: key + "\"") else { return nil }
        let rest = line[range.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return rest[..<end]
    }
}
