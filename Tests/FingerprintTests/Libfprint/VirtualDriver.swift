import Fingerprint
import FingerprintTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// libfprint's three hardware-free drivers.
enum VirtualDriver: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case device = "virtual_device"
    case storage = "virtual_device_storage"
    case image = "virtual_image"

    var testDescription: String { rawValue }

    /// Sets up the process environment for `drivers` (only from tests that take turns with
    /// `.exclusive(to: .processSettings)`: the variables are process-wide) and returns a fresh
    /// context that will enumerate them, with the socket paths.
    static func environment(for drivers: [VirtualDriver]) -> (LibfprintContext, [VirtualDriver: String]) {
        let paths = VirtualDeviceEnvironment.prepare(drivers: drivers.map(\.rawValue))
        return (LibfprintContext(), Dictionary(uniqueKeysWithValues: paths.map { (VirtualDriver(rawValue: $0.key)!, $0.value) }))
    }

    /// Runs `body` with a fresh context, the reader of this driver and its driver script.
    func withDriver(_ body: (any ReaderDriver, LibfprintContext) async throws -> Void) async throws {
        let (context, paths) = Self.environment(for: [self])
        let path = paths[self]!
        defer { unlink(path) }
        let reader = try await context.reader(matching: rawValue)
        let driver: any ReaderDriver =
            switch self {
            case .device, .storage:
                VirtualDeviceDriver(reader: reader, context: context, socket: VirtualDeviceSocket(path: path))
            case .image:
                try VirtualImageDriver(reader: reader, context: context, feeder: VirtualImageFeeder(path: path))
            }
        try await body(driver, context)
    }
}

/// Drives `virtual_device` and `virtual_device_storage` through their command socket.
struct VirtualDeviceDriver: ReaderDriver {
    let reader: any FingerprintReader
    let context: LibfprintContext
    let socket: VirtualDeviceSocket

    let fingers: [Finger] = [.rightIndex, .leftThumb, .rightLittle, .leftRing]
    let stranger: Finger = .rightMiddle

    var abilities: DriverAbilities {
        DriverAbilities(
            retryDuringEnroll: true, retryDuringScan: true, unplug: true,
            failures: Array(Self.errorCodes.keys))
    }

    /// The `FpDeviceError` code that makes the reader report each failure.
    static let errorCodes: [FingerprintError.Code: Int] = [
        .deviceError: 5, .notSupported: 1, .busy: 4, .invalidPrint: 6, .storageFull: 8, .duplicate: 9,
        .unplugged: 0x100, .tooHot: 0x101,
    ]

    /// The scan id of a finger, in fprintd's user-id format so that a match-on-chip reader can tell
    /// which finger a stored print is.
    static func scanID(_ finger: Finger) -> String { VirtualDeviceSocket.scanID(finger: finger.ordinal) }

    func touch(_ finger: Finger) async throws { try await socket.touch(Self.scanID(finger)) }

    func retry(_ reason: RetryReason) async throws {
        let code = RetryReason.allCases.firstIndex(of: reason)!
        try await socket.queue(.retry(code))
    }

    func fail(_ code: FingerprintError.Code) async throws {
        try await socket.queue(.error(try #require(Self.errorCodes[code])))
    }

    func unplug() async throws { try await socket.send(.unplug) }

    func allowStorageOperation() async throws { try await socket.queue(.cont) }

    func operationEnded() async { await context.waitUntilIdle() }
}

/// Drives `virtual_image` with the public-domain NIST images: each finger is one image.
struct VirtualImageDriver: ReaderDriver {
    let reader: any FingerprintReader
    let context: LibfprintContext
    let feeder: VirtualImageFeeder
    let images: [Finger: GreyImage]

    let fingers: [Finger] = [.rightIndex, .leftIndex, .rightMiddle]
    let stranger: Finger = .rightRing

    init(reader: any FingerprintReader, context: LibfprintContext, feeder: VirtualImageFeeder) throws {
        self.reader = reader
        self.context = context
        self.feeder = feeder
        var images: [Finger: GreyImage] = [:]
        for (finger, name) in Self.imageNames {
            images[finger] = try GreyImage(contentsOfPGM: TestData.prints.appending(path: "\(name).pgm"))
        }
        self.images = images
    }

    /// Whorl is the finger enrolled first; the facts page promises only that whorl matches itself and
    /// not the other three.
    static let imageNames: [Finger: String] = [
        .rightIndex: "whorl", .leftIndex: "arch", .rightMiddle: "loop-right", .rightRing: "tented_arch",
    ]

    var abilities: DriverAbilities {
        DriverAbilities(
            retryDuringEnroll: false, retryDuringScan: true, unplug: true,
            failures: Array(VirtualDeviceDriver.errorCodes.keys))
    }

    func touch(_ finger: Finger) async throws { try await feeder.send(try #require(images[finger])) }

    func retry(_ reason: RetryReason) async throws {
        try await feeder.retry(Int32(RetryReason.allCases.firstIndex(of: reason)!))
    }

    func fail(_ code: FingerprintError.Code) async throws {
        try await feeder.error(Int32(try #require(VirtualDeviceDriver.errorCodes[code])))
    }

    func unplug() async throws { try await feeder.unplug() }

    func allowStorageOperation() async throws {}

    /// Waits for libfprint to close the device (a cancelled enroll's stream ends before that), then drops
    /// the connection, so that the next image reaches the next opening of the device.
    func operationEnded() async {
        await context.waitUntilIdle()
        await feeder.disconnect()
    }
}

enum TestData {
    /// `/work/shared/testdata/prints` (or `FINGERLOCK_TESTDATA/prints`).
    static var prints: URL {
        if let root = ProcessInfo.processInfo.environment["FINGERLOCK_TESTDATA"] {
            return URL(fileURLWithPath: root).appending(path: "prints")
        }
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let inRepo = repository.appending(path: "Tests/Fixtures/prints")
        if FileManager.default.fileExists(atPath: inRepo.path) { return inRepo }
        return URL(fileURLWithPath: "/work/shared/testdata/prints")
    }
}
