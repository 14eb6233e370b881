import Foundation
import Testing

@testable import Fingerprint

#if canImport(Glibc)
import Glibc
#endif

@Suite struct FilePrintStoreTests {
    let root: String = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("fl-store-\(UUID().uuidString)").path
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return path
    }()

    func print(_ finger: Finger, _ reader: ReaderIdentity) -> EnrolledPrint {
        EnrolledPrint(finger: finger, reader: reader, template: Data([0x46, 0x50, 0x33, UInt8(finger.ordinal)]), enrolled: Date(timeIntervalSince1970: 1_700_000_000))
    }

    @Test func savesLoadsAndDeletesPrivately() throws {
        let store = FilePrintStore(dataDirectory: root)
        let usb = ReaderIdentity(driver: "goodixmoc", deviceID: "1-4:1.0/weird id")
        let sim = SimulatedReaderIdentity.identity
        try store.save(print(.rightIndex, usb))
        try store.save(print(.leftThumb, usb))
        try store.save(print(.rightIndex, sim))
        #expect(try store.prints(for: usb) == [print(.leftThumb, usb), print(.rightIndex, usb)])
        #expect(try store.allPrints().count == 3)
        var info = stat()
        for path in try FileManager.default.subpathsOfDirectory(atPath: store.root) {
            stat(store.root + "/" + path, &info)
            let isDirectory = (info.st_mode & S_IFMT) == S_IFDIR
            #expect(info.st_mode & 0o777 == (isDirectory ? 0o700 : 0o600), "\(path)")
        }
        #expect(try store.delete(.leftThumb, on: usb))
        #expect(try !store.delete(.leftThumb, on: usb))
        #expect(try store.prints(for: usb) == [print(.rightIndex, usb)])
    }

    @Test func aDamagedFileIsReportedByNameWithAHint() throws {
        let store = FilePrintStore(dataDirectory: root)
        try store.save(print(.rightThumb, SimulatedReaderIdentity.identity))
        let path = store.root + "/simulated/0/right-thumb"
        try Data("{not json".utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o600)
        let error = #expect(throws: FingerprintError.self) { try store.allPrints() }
        #expect(error?.code == .invalidPrint)
        #expect(error?.message.contains(path) == true)
        #expect(error?.message.contains("enroll it again") == true)
    }

    @Test func anEmptyStoreHasNoPrints() throws {
        #expect(try FilePrintStore(dataDirectory: root).allPrints().isEmpty)
    }
}
