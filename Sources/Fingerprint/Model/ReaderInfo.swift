/// What a reader is and what it can do.
public struct ReaderInfo: Codable, Hashable, Sendable {
    public var name: String
    public var driver: String
    public var deviceID: String
    public var scanType: ScanType
    /// The touches an enrollment needs, as libfprint says before the device is opened.
    public var enrollStages: Int
    public var features: ReaderFeatures

    /// Whether the driver sets the stage count only when the device opens, so ``enrollStages`` may
    /// not be what enrollment asks for (elanmoc: 9, 11 or 17 by model).
    public var enrollStagesKnownAtOpen: Bool { EnrollStageCounts.decidedAtOpen.contains(driver) }
    /// Whether the count is a maximum the driver may finish before (fpcmoc asks for up to 25).
    public var enrollStagesAreMaximum: Bool { EnrollStageCounts.maximum.contains(driver) }

    public init(
        name: String, driver: String, deviceID: String, scanType: ScanType, enrollStages: Int,
        features: ReaderFeatures
    ) {
        self.name = name
        self.driver = driver
        self.deviceID = deviceID
        self.scanType = scanType
        self.enrollStages = enrollStages
        self.features = features
    }

    public var identity: ReaderIdentity { ReaderIdentity(driver: driver, deviceID: deviceID) }

    /// Whether the reader can match one touch against several prints at once.
    public var canIdentify: Bool { features.contains(.identify) }
    /// Whether the reader keeps prints in its own storage (match-on-chip).
    public var hasStorage: Bool { features.contains(.storage) }

    enum CodingKeys: String, CodingKey {
        case id, name, driver, deviceId, scanType, enrollStages, enrollStagesKnownAtOpen, enrollStagesMaximum,
            features
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        driver = try container.decode(String.self, forKey: .driver)
        deviceID = try container.decode(String.self, forKey: .deviceId)
        scanType = try container.decode(ScanType.self, forKey: .scanType)
        enrollStages = try container.decode(Int.self, forKey: .enrollStages)
        features = try container.decode(ReaderFeatures.self, forKey: .features)
    }

    /// Encodes the CLI contract's shape: `{id, name, driver, deviceId, scanType, enrollStages,
    /// enrollStagesKnownAtOpen, enrollStagesMaximum, features}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(identity.description, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(driver, forKey: .driver)
        try container.encode(deviceID, forKey: .deviceId)
        try container.encode(scanType, forKey: .scanType)
        try container.encode(enrollStages, forKey: .enrollStages)
        try container.encode(enrollStagesKnownAtOpen, forKey: .enrollStagesKnownAtOpen)
        try container.encode(enrollStagesAreMaximum, forKey: .enrollStagesMaximum)
        try container.encode(features, forKey: .features)
    }
}

/// How the finger meets the sensor.
public enum ScanType: String, Codable, Sendable {
    case swipe
    case press
}

/// Drivers whose enroll stage count cannot be taken from enumeration at face value (libfprint 1.94).
enum EnrollStageCounts {
    /// Set in the driver's open: enumeration shows the class default. The virtual drivers belong here
    /// because `SET_ENROLL_STAGES` changes their count at any time.
    static let decidedAtOpen: Set<String> = ["elanmoc", "virtual_device", "virtual_device_storage"]
    /// A maximum: the sensor ends enrollment once it has enough coverage.
    static let maximum: Set<String> = ["fpcmoc"]
}
