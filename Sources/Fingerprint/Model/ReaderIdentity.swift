/// Which reader a print belongs to: the libfprint driver and the device id, printed `driver:device-id`.
public struct ReaderIdentity: Codable, Hashable, Sendable, Comparable, CustomStringConvertible {
    public var driver: String
    public var deviceID: String

    public init(driver: String, deviceID: String) {
        self.driver = driver
        self.deviceID = deviceID
    }

    /// Parses `driver:device-id`; the device id may itself contain colons.
    public init?(_ text: String) {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let driver = String(text[..<colon])
        let device = String(text[text.index(after: colon)...])
        guard !driver.isEmpty, !device.isEmpty else { return nil }
        self.init(driver: driver, deviceID: device)
    }

    public var description: String { "\(driver):\(deviceID)" }

    /// Test readers (the simulated reader and libfprint's `virtual_*` drivers) never unlock a
    /// hardware vault, and hardware readers never unlock a test vault.
    public var isTestReader: Bool { isSimulated || driver.hasPrefix("virtual_") }

    /// fingerlock's own simulated reader.
    public var isSimulated: Bool { driver == SimulatedReaderIdentity.driver }

    public static func < (lhs: ReaderIdentity, rhs: ReaderIdentity) -> Bool { lhs.description < rhs.description }
}

/// The fixed identity of fingerlock's simulated reader.
public enum SimulatedReaderIdentity {
    public static let driver = "simulated"
    public static let deviceID = "0"
    public static var identity: ReaderIdentity { ReaderIdentity(driver: driver, deviceID: deviceID) }
}
