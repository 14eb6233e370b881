import AuthCore
import FingerlockTestSupport
import Fingerprint
import Foundation
import Testing

/// The fingers a vault accepted from fprintd, against fprintd's set now.
@Suite(.timed) struct AcceptedFingersTests {
    let accepted = AcceptedFingers(device: "Goodix MOC", fingers: [.rightIndex, .leftThumb, .rightIndex])

    @Test func theSameSetInAnyOrderIsNoChange() {
        #expect(accepted.fingers == [.leftThumb, .rightIndex])
        #expect(accepted.change(to: AcceptedFingers(device: "Goodix MOC", fingers: [.rightIndex, .leftThumb])) == nil)
    }

    @Test func anAddedOrRemovedFingerOrAnotherReaderIsAChangeThatSaysWhich() throws {
        let added = try #require(accepted.change(to: AcceptedFingers(device: "Goodix MOC", fingers: [.leftThumb, .rightIndex, .rightMiddle])))
        #expect(added.added == [.rightMiddle] && added.removed.isEmpty)
        #expect(added.summary == "added right-middle-finger")
        let removed = try #require(accepted.change(to: AcceptedFingers(device: "Goodix MOC", fingers: [.leftThumb])))
        #expect(removed.summary == "removed right-index-finger")
        let reader = try #require(accepted.change(to: AcceptedFingers(device: "Synaptics", fingers: [.leftThumb, .rightIndex])))
        #expect(reader.summary == "the reader is now Synaptics (was Goodix MOC)")
    }

    @Test func itIsSealedAsJSONThatRoundTrips() throws {
        let data = try JSONEncoder().encode(accepted)
        #expect(try JSONDecoder().decode(AcceptedFingers.self, from: data) == accepted)
    }
}
