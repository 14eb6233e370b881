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

/// The passcode's consent to fprintd's set as it is now: one rule for both modes.
@Suite(.timed) struct FprintdConsentTests {
    let accepted = AcceptedFingers(device: "Goodix MOC", fingers: [.rightIndex])

    @Test func fprintdsSetUnchangedKeepsAndSaysNothing() {
        #expect(FprintdConsent.afterPasscode(accepted: accepted, now: AcceptedFingers(device: "Goodix MOC", fingers: [.rightIndex])) == .unchanged)
    }

    @Test func aChangedSetIsTakenAndSaidAsWhatChanged() throws {
        let now = AcceptedFingers(device: "Goodix MOC", fingers: [.rightIndex, .leftThumb])
        let consent = FprintdConsent.afterPasscode(accepted: accepted, now: now)
        guard case .accept(let kept, let change) = consent else {
            Issue.record("\(consent)")
            return
        }
        #expect(kept == now)
        #expect(FprintdConsent.told(change.summary) == "This vault now accepts fprintd's fingers as they are (added left-thumb).")
        // Every finger gone at fprintd is a change too: the vault then accepts none, and no touch unlocks.
        #expect(FprintdConsent.afterPasscode(accepted: accepted, now: AcceptedFingers(device: "Goodix MOC", fingers: [])) != .unchanged)
    }

    @Test func fprintdNotAnsweringKeepsTheAcceptedSet() {
        #expect(FprintdConsent.afterPasscode(accepted: accepted, now: nil) == .notChecked)
    }
}
