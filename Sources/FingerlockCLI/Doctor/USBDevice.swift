import Foundation

/// A USB device as sysfs shows it under `/sys/bus/usb/devices/<name>`.
public struct USBDevice: Hashable, Sendable {
    /// The sysfs name, e.g. `1-4`.
    public var name: String
    public var id: USBID
    public var busNumber: Int
    public var deviceNumber: Int
    /// The product string the device reports, when it has one.
    public var product: String?

    public init(name: String, id: USBID, busNumber: Int, deviceNumber: Int, product: String? = nil) {
        self.name = name
        self.id = id
        self.busNumber = busNumber
        self.deviceNumber = deviceNumber
        self.product = product
    }

    /// `bus/usb/BBB/DDD`, the usbfs node libusb opens, relative to the devfs root.
    public var nodeRelativePath: String {
        "bus/usb/" + Self.threeDigits(busNumber) + "/" + Self.threeDigits(deviceNumber)
    }

    /// The node's path in a devfs mounted at `devfsRoot` (normally `/dev`).
    public func nodePath(devfsRoot: String) -> String {
        (devfsRoot.hasSuffix("/") ? devfsRoot : devfsRoot + "/") + nodeRelativePath
    }

    /// Every device (not interface) under `directory`: entries with `idVendor`, `idProduct`,
    /// `busnum` and `devnum`. Interfaces (`1-4:1.0`) have no `idVendor` and are skipped.
    /// Throws when the directory cannot be listed (no sysfs, no USB bus).
    public static func scan(_ directory: String) throws -> [USBDevice] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory)
        return names.compactMap { name -> USBDevice? in
            let base = directory + "/" + name + "/"
            func read(_ attribute: String) -> String? {
                PseudoFile.read(base + attribute)?.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            guard let vendor = read("idVendor"), let product = read("idProduct"),
                let id = USBID(vendor: vendor, product: product),
                let bus = read("busnum").flatMap({ Int($0) }), let device = read("devnum").flatMap({ Int($0) })
            else { return nil }
            return USBDevice(
                name: name, id: id, busNumber: bus, deviceNumber: device,
                product: read("product").flatMap { $0.isEmpty ? nil : $0 })
        }
        .sorted { ($0.busNumber, $0.deviceNumber) < ($1.busNumber, $1.deviceNumber) }
    }

    private static func threeDigits(_ value: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, 3 - digits.count)) + digits
    }
}
