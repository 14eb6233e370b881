public import Fingerprint

/// fprintd as the finger seam asks it, for one user (the caller's own in user mode; the vault owner,
/// named, when fingerlockd asks): the fprintd client in Fingerprint conforms, and tests may use any
/// other keeper that answers the same way.
public protocol FprintdFingers: Sendable {
    /// fprintd's default device; throws a ``FingerprintError`` (`.noReader` when fprintd has none).
    func device() async throws -> FprintdDevice

    /// The user's fingers enrolled with fprintd on its default device (empty when none).
    func enrolledFingers() async throws -> [Finger]

    /// One verify of `finger` (nil: fprintd's `any`) up to its first answer: a match (with the finger
    /// fprintd selected, when it names one), a no-match, or a retry hint (the verify is then
    /// stopped; the caller asks again). Claims the device for the scan and always releases it, also
    /// on errors, timeout and cancellation. `fingerRead` as for ``FingerSource``.
    func verify(_ finger: Finger?, timeout: Duration, fingerRead: @escaping @Sendable () -> Void) async throws
        -> FprintdVerifyResult
}

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

    /// The driver name fprintd's readers go by in fingerlock (`--reader fprintd`).
    public static let driver = "fprintd"
}

/// What one fprintd verify came to.
public enum FprintdVerifyResult: Sendable, Equatable {
    /// `selected`: the finger fprintd named in `VerifyFingerSelected` (nil for `any` on a reader
    /// that identifies without saying which finger matched).
    case match(selected: Finger?)
    case noMatch
    case retry(RetryReason)
}
