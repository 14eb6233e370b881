import AuthCore
import FingerlockTestSupport
import Fingerprint
import Foundation
import Testing

/// Which readers a vault accepts, and which prints a touch is matched against.
@Suite(.timed) struct ReaderRulesTests {
    static let simulated = ReaderIdentity(driver: "simulated", deviceID: "0")
    static let virtual = ReaderIdentity(driver: "virtual_image", deviceID: "0")
    static let real = ReaderIdentity(driver: "goodixmoc", deviceID: "1-2")

    @Test func aTestVaultAcceptsOnlyTestReadersAndAHardwareVaultNone() {
        #expect(ReaderKind(of: Self.simulated) == .test && ReaderKind(of: Self.virtual) == .test)
        #expect(ReaderKind(of: Self.real) == .hardware)
        #expect(ReaderKind.test.accepts(Self.simulated) && ReaderKind.test.accepts(Self.virtual))
        #expect(!ReaderKind.test.accepts(Self.real))
        #expect(ReaderKind.hardware.accepts(Self.real))
        #expect(!ReaderKind.hardware.accepts(Self.simulated) && !ReaderKind.hardware.accepts(Self.virtual))
    }

    static func print(_ finger: Finger, on reader: ReaderIdentity) -> EnrolledPrint {
        EnrolledPrint(finger: finger, reader: reader, template: Data([1]), enrolled: Date(timeIntervalSince1970: 0))
    }

    let enrolled = [
        print(.rightIndex, on: real), print(.leftThumb, on: real), print(.rightThumb, on: simulated),
    ]

    @Test func onlyTheReadersOwnPrintsAllOfThemWhereItIdentifies() throws {
        let candidates = try MatchCandidates(enrolled, reader: Self.real, canIdentify: true)
        #expect(candidates.prints.map(\.finger) == [.rightIndex, .leftThumb])
        #expect(candidates.identifies)
    }

    @Test func theFirstOnlyWhereTheReaderCannotIdentify() throws {
        let candidates = try MatchCandidates(enrolled, reader: Self.real, canIdentify: false)
        #expect(candidates.prints.map(\.finger) == [.rightIndex])
        #expect(!candidates.identifies)
        // One print is identified by verifying it.
        #expect(try MatchCandidates(enrolled, reader: Self.simulated, canIdentify: false).identifies)
    }

    @Test func aNamedFingerNarrowsTheCandidates() throws {
        let candidates = try MatchCandidates(enrolled, reader: Self.real, canIdentify: false, wanted: .leftThumb)
        #expect(candidates.prints.map(\.finger) == [.leftThumb] && candidates.identifies)
        #expect(throws: MatchCandidates.Problem.fingerNotEnrolled(.rightThumb, Self.real)) {
            try MatchCandidates(enrolled, reader: Self.real, canIdentify: true, wanted: .rightThumb)
        }
    }

    @Test func noPrintOnThisReaderIsNotEnrolled() {
        #expect(throws: MatchCandidates.Problem.noneEnrolled(Self.virtual)) {
            try MatchCandidates(enrolled, reader: Self.virtual, canIdentify: true)
        }
    }

    @Test func everyDefaultIsWithinItsBounds() {
        for setting in SecuritySetting.allCases {
            #expect(setting.contains(setting.defaultValue), "\(setting)")
        }
        #expect(!SecuritySetting.reuseWindow.contains(301) && !SecuritySetting.cacheExpiry.contains(59))
    }
}
