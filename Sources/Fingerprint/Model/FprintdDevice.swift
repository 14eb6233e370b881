/// fprintd's default device as its properties describe it.
public struct FprintdDevice: Sendable, Equatable {
    public var name: String
    public var scanType: ScanType
    public var enrollStages: Int

    public init(name: String, scanType: ScanType, enrollStages: Int) {
        self.name = name
        self.scanType = scanType
        self.enrollStages = enrollStages
    }

    /// How the device is named beside libfprint's readers: driver `fprintd`, its name as the device.
    public var info: ReaderInfo {
        ReaderInfo(
            name: name, driver: FprintdDevice.driver, deviceID: name, scanType: scanType, enrollStages: enrollStages,
            features: [.verify])
    }

    /// The identity of fprintd's reader called `name` (as ``info`` names it).
    public static func identity(named name: String) -> ReaderIdentity { ReaderIdentity(driver: driver, deviceID: name) }

    /// The driver name fprintd's readers go by in fingerlock: the `--reader` word.
    public static let driver = ReaderSelector.fprintdKeyword
}

/// What one fprintd verify came to.
public enum FprintdVerifyResult: Sendable, Equatable {
    /// `selected`: the finger fprintd named in `VerifyFingerSelected` (nil for `any` on a reader
    /// that identifies without saying which finger matched).
    case match(selected: Finger?)
    /// `checked`: the finger fprintd named in `VerifyFingerSelected` (for `any` on a reader that
    /// cannot identify, the one it checked; nil when it identified among all).
    case noMatch(checked: Finger?)
    case retry(RetryReason)
}
