import FingerlockTestSupport
import Foundation
import Testing

@testable import FingerlockCLI

/// The message for an id start that several notes share: each candidate cut as short as tells them
/// apart, with its title, on one line, as git does (through the binary: `AmbiguousNoteIDTests`).
@Suite(.timed) struct NoteIDAmbiguityTests {
    @Test func theMessageCutsIdsAsShortAsTellsThemApart() throws {
        let a = try #require(UUID(uuidString: "3f2a1b2c-0000-0000-0000-000000000001"))
        let b = try #require(UUID(uuidString: "3f2a1b2c-9000-0000-0000-000000000002"))
        let c = try #require(UUID(uuidString: "3f9e0011-0000-0000-0000-000000000003"))
        #expect(
            NoteIDArgument.ambiguityMessage("3f", [(a, "door"), (c, "")], more: false)
                == "\"3f\" matches 2 notes: 3f2a1b2c (door), 3f9e0011 (untitled); type more of the id.")
        #expect(
            NoteIDArgument.ambiguityMessage("3f2a", [(a, "door"), (b, "bank")], more: true)
                == "\"3f2a\" matches more than 2 notes: 3f2a1b2c-0 (door), 3f2a1b2c-9 (bank), …; type more of the id.")
    }
}
