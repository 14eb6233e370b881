import AuthCore
import FingerlockTestSupport
import Fingerprint
import Foundation
import Testing

/// When a reader's "not in my storage" is about prints it lost rather than a wrong finger.
@Suite(.timed, .timeLimit(.minutes(1)))
struct LostPrintsTests {
    static let reader = ReaderIdentity(driver: "synaptics", deviceID: "1-3")
    static let index = EnrolledPrint(finger: .rightIndex, reader: reader, template: Data([1]), enrolled: Date(timeIntervalSince1970: 0))
    static let thumb = EnrolledPrint(finger: .leftThumb, reader: reader, template: Data([2]), enrolled: Date(timeIntervalSince1970: 0))

    /// synaptics verifies against one named print and cannot list: its answer is about that print.
    @Test func aVerifyOnAReaderThatCannotListLostItsOnePrint() {
        let lost = LostPrints(scanned: [Self.index], storage: .unlisted)
        #expect(lost.prints == [Self.index] && lost.noneLeft)
        #expect(lost.sentence(on: Self.reader).contains("The right-index-finger print is no longer stored on"))
        #expect(lost.sentence(on: Self.reader).contains("fingerlock enroll right-index-finger"))
    }

    @Test func anIdentifyOnAReaderThatCannotListNamesNoPrint() {
        let lost = LostPrints(scanned: [Self.index, Self.thumb], storage: .unlisted)
        #expect(lost.prints.isEmpty && !lost.noneLeft)
        #expect(lost.sentence(on: Self.reader).isEmpty)
    }

    @Test func aListDecidesAndAFailedListingProvesNothing() {
        #expect(LostPrints(scanned: [Self.index], storage: .listed(stillStored: [])).noneLeft)
        #expect(!LostPrints(scanned: [Self.index], storage: .listed(stillStored: [Self.index])).noneLeft)
        let partly = LostPrints(scanned: [Self.index, Self.thumb], storage: .listed(stillStored: [Self.index]))
        #expect(partly.prints == [Self.thumb] && !partly.noneLeft)
        #expect(!LostPrints(scanned: [Self.index], storage: .unknown).noneLeft)
    }
}
