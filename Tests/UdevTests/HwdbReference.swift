import Foundation

/// The tests' own reading of libfprint's hwdb, independent of the generator, so a generator bug
/// cannot hide behind the same bug in the check.
struct HwdbReference {
    /// `vvvv:pppp`, lower case, as udev compares sysfs attributes.
    var supported: Set<String> = []
    var unsupported: Set<String> = []

    init(contentsOf path: String) throws {
        try self.init(text: String(contentsOfFile: path, encoding: .utf8))
    }

    init(text: String) {
        var inUnsupported: Bool?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("# Supported by libfprint driver ") { inUnsupported = false }
            if line.hasPrefix("# Known unsupported devices") { inUnsupported = true }
            guard line.hasPrefix("usb:v"), line.count == 15, let section = inUnsupported else { continue }
            let vendor = line.dropFirst(5).prefix(4).lowercased()
            let product = line.dropFirst(10).prefix(4).lowercased()
            if section {
                unsupported.insert("\(vendor):\(product)")
            } else {
                supported.insert("\(vendor):\(product)")
            }
        }
    }
}
