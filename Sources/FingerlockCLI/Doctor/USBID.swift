/// A USB vendor:product pair, printed lower-case as sysfs and udev rules spell it (`06cb:00bd`).
public struct USBID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var vendor: UInt16
    public var product: UInt16

    public init(vendor: UInt16, product: UInt16) {
        self.vendor = vendor
        self.product = product
    }

    /// Parses the four-hex-digit strings of sysfs (`idVendor`, `idProduct`) or the hwdb.
    public init?(vendor: some StringProtocol, product: some StringProtocol) {
        guard vendor.count == 4, product.count == 4,
            let vendor = UInt16(vendor, radix: 16), let product = UInt16(product, radix: 16)
        else { return nil }
        self.init(vendor: vendor, product: product)
    }

    public var vendorHex: String { Self.hex(vendor) }
    public var productHex: String { Self.hex(product) }
    public var description: String { "\(vendorHex):\(productHex)" }

    public static func < (lhs: USBID, rhs: USBID) -> Bool {
        (lhs.vendor, lhs.product) < (rhs.vendor, rhs.product)
    }

    private static func hex(_ value: UInt16) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 4 - digits.count) + digits
    }
}
