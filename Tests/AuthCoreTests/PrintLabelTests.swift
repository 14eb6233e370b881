import AuthCore
import FingerlockTestSupport
import Fingerprint
import Foundation
import Testing

/// The label fingerlock writes as a print's username, and how prints on a chip are told apart by it.
@Suite(.timed, .timeLimit(.minutes(1)))
struct PrintLabelTests {
    static let storeID = UUID(uuidString: "1A2B3C4D-0000-4000-8000-000000000001")!
    static let reader = ReaderIdentity(driver: "goodixmoc", deviceID: "1-2")
    /// libfprint's `FP1-YYYYMMDD-F-RRRRRRRR-` in front of the label on the chip.
    static let userIDHead = "FP1-20260101-7-00000000-"

    static func stored(_ username: String?) -> StoredPrint {
        StoredPrint(reader: reader, finger: .rightIndex, username: username, enrolled: nil, template: Data([1]))
    }

    /// goodixmoc reads back 56 bytes of the user id: a label that makes it longer never matches again.
    @Test(arguments: [21, 33, 200])
    func aLongUserNameStaysWithinWhatGoodixmocReadsBack(length: Int) {
        let user = String(repeating: "u", count: length)
        let label = PrintLabel.username(user: user, storeID: Self.storeID)
        #expect((Self.userIDHead + label).utf8.count <= 56)
        #expect(label.hasPrefix("fl:1a2b3c4d:"))
        #expect(!label.contains(user))
    }

    @Test func multiByteNamesAreMeasuredInBytes() {
        // 11 characters, 22 bytes.
        let label = PrintLabel.username(user: String(repeating: "é", count: 11), storeID: Self.storeID)
        #expect((Self.userIDHead + label).utf8.count <= 56)
    }

    @Test func aNameThatFitsIsKeptAsBefore() {
        #expect(PrintLabel.username(user: "alice", storeID: Self.storeID) == "fl:1a2b3c4d:alice")
        let twenty = String(repeating: "a", count: 20)
        #expect(PrintLabel.username(user: twenty, storeID: Self.storeID) == "fl:1a2b3c4d:" + twenty)
    }

    @Test func theHashIsFixedInLengthAndTellsUsersApart() {
        let one = PrintLabel.username(user: String(repeating: "a", count: 21), storeID: Self.storeID)
        let other = PrintLabel.username(user: String(repeating: "a", count: 22), storeID: Self.storeID)
        #expect(one != other && one.utf8.count == other.utf8.count)
        #expect(one == PrintLabel.username(user: String(repeating: "a", count: 21), storeID: Self.storeID))
    }

    /// A hashed label, today's label with a long name (possibly cut by a chip) and a short one are all
    /// fingerlock's, of the vault their tag names.
    @Test func hashedAndLongLabelsAreRecognisedByTheirTag() {
        let hashed = PrintLabel.username(user: String(repeating: "h", count: 30), storeID: Self.storeID)
        let todaysLong = "fl:1a2b3c4d:" + String(repeating: "l", count: 30)
        let cut = String(todaysLong.prefix(32))
        for label in [hashed, todaysLong, cut, "fl:1a2b3c4d:alice"] {
            #expect(PrintLabel.owner(of: Self.stored(label), ourTag: "1a2b3c4d") == .leftOver, "\(label)")
            #expect(PrintLabel.owner(of: Self.stored(label), ourTag: "99999999") == .otherVault(tag: "1a2b3c4d"))
        }
        #expect(PrintLabel.user(of: Self.stored(hashed)) == nil)
        #expect(PrintLabel.user(of: Self.stored(todaysLong)) == String(repeating: "l", count: 30))
        #expect(PrintLabel.user(of: Self.stored("fl:1a2b3c4d:alice")) == "alice")
        #expect(PrintLabel.owner(of: Self.stored("carol"), ourTag: "1a2b3c4d") == .foreign(username: "carol"))
    }
}
