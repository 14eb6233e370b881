import Auth
import FingerlockTestSupport
import Fingerprint
import Foundation
import Testing
import Vault

/// How enrolled prints are sealed in the vault (see `TemplateRecord`).
@Suite(.timed) struct TemplateRecordTests {
    static let print = EnrolledPrint(
        finger: .rightIndex, reader: ReaderIdentity(driver: "virtual_device", deviceID: "0"),
        template: Data((0..<3000).map { UInt8(truncatingIfNeeded: $0 * 7) }), enrolled: Date(timeIntervalSince1970: 1_795_323_600.25))

    @Test func aPrintSurvivesTheRoundTrip() throws {
        let record = try TemplateRecord.encode(Self.print)
        #expect(record.first == 1)
        #expect(TemplateRecord.decode(record) == Self.print)
        // Also when the bytes arrive as a slice of something larger.
        let framed = Data([0xAA, 0xBB]) + record
        #expect(TemplateRecord.decode(framed.dropFirst(2)) == Self.print)
        let empty = EnrolledPrint(
            finger: .leftThumb, reader: ReaderIdentity(driver: "synaptics", deviceID: "1-4"), template: Data(),
            enrolled: .init(timeIntervalSince1970: 0))
        #expect(TemplateRecord.decode(try TemplateRecord.encode(empty)) == empty)
        let early = EnrolledPrint(
            finger: .leftThumb, reader: Self.print.reader, template: Data([1]), enrolled: .init(timeIntervalSince1970: -86_400.5))
        #expect(TemplateRecord.decode(try TemplateRecord.encode(early)) == early)
    }

    @Test func aReaderIdTooLongToStoreIsRefused() {
        let long = EnrolledPrint(
            finger: .leftThumb, reader: ReaderIdentity(driver: "d", deviceID: String(repeating: "x", count: 70_000)),
            template: Data(), enrolled: Date())
        #expect(throws: AuthError.self) { try TemplateRecord.encode(long) }
    }

    @Test func printsSealedAsJSONByEarlierVersionsAreRead() throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let legacy = try encoder.encode(
            EnrolledPrint(
                finger: .leftRing, reader: ReaderIdentity(driver: "virtual_image", deviceID: "0"), template: Data([1, 2, 3]),
                enrolled: Date(timeIntervalSince1970: 1_795_323_600)))
        let print = try #require(TemplateRecord.decode(legacy))
        #expect(print.finger == .leftRing)
        #expect(print.reader.description == "virtual_image:0")
        #expect(print.template == Data([1, 2, 3]))
        #expect(print.enrolled == Date(timeIntervalSince1970: 1_795_323_600))
    }

    @Test func everyTruncationAndAWrongVersionAreRefused() throws {
        let record = try TemplateRecord.encode(Self.print)
        // Cut anywhere: every field is length-prefixed, so a short record is never read.
        for length in 0..<record.count {
            #expect(TemplateRecord.decode(record.prefix(length)) == nil, "cut at \(length)")
        }
        var wrongVersion = record
        wrongVersion[0] = 2
        #expect(TemplateRecord.decode(wrongVersion) == nil)
        #expect(TemplateRecord.decode(Data("{not json".utf8)) == nil)
    }

    @Test func anUnknownFingerOrReaderIsRefused() throws {
        func record(finger: String, reader: String) -> Data {
            var writer = ByteWriter()
            writer.u8(1)
            writer.string(finger)
            writer.string(reader)
            writer.date(Date(timeIntervalSince1970: 0))
            writer.field([UInt8]())
            return writer.data
        }
        #expect(TemplateRecord.decode(record(finger: "left-ring-finger", reader: "abc:0")) != nil)
        #expect(TemplateRecord.decode(record(finger: "xight-index-finger", reader: "abc:0")) == nil)
        #expect(TemplateRecord.decode(record(finger: "left-ring-finger", reader: "abc")) == nil)
        #expect(TemplateRecord.decode(record(finger: "left-ring-finger", reader: "abc:0") + Data([0])) == nil)
    }

    @Test func theVaultStoreWritesRecordsAndReadsBothKinds() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fl-templates-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (vault, _) = try Vault.create(in: directory, passcode: "template test 1", kind: .test, cost: .insecureForTestsOnly())
        defer { vault.close() }
        let store = VaultPrintStore(vault: vault)
        try store.save(Self.print)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let legacy = EnrolledPrint(
            finger: .leftThumb, reader: Self.print.reader, template: Data([9, 9]), enrolled: Date(timeIntervalSince1970: 1_700_000_000))
        try vault.putTemplate(try encoder.encode(legacy), reader: legacy.reader.description, finger: legacy.finger.rawValue)
        #expect(try vault.templates(reader: Self.print.reader.description).first { $0.finger == "right-index-finger" }?.data.first == 1)
        #expect(try store.prints(for: Self.print.reader) == [legacy, Self.print])
    }
}
