import FingerlockTestSupport
import Foundation
import Testing
import Vault

@testable import FingerlockCLI

/// The restore plan's note lines: which notes come back, go away or change, titles made safe for
/// the terminal and capped with "and N more".
@Suite(.timed) struct RestorePlanNotesTests {
    func note(_ title: String, id: UUID = UUID(), modified: Double = 0) -> NoteSummary {
        NoteSummary(id: id, title: title, tags: [], created: Date(timeIntervalSince1970: 0), modified: Date(timeIntervalSince1970: modified))
    }

    @Test("notes are compared by id: new in the backup, missing from it, or with another header")
    func changes() {
        let same = note("same")
        let edited = note("edited", modified: 5)
        let gone = note("gone")
        let back = note("back")
        var editedThen = edited
        editedThen.title = "edited then"
        let changes = NoteSetChanges(from: [same, edited, gone], to: [same, editedThen, back])
        #expect(changes.appear == [back])
        #expect(changes.disappear == [gone])
        #expect(changes.change == [editedThen])
        #expect(NoteSetChanges(from: [same], to: [same]).isEmpty)
    }

    @Test("titles are quoted, escaped and capped")
    func titles() {
        #expect(RestorePlanText.titles([note("a")]) == "\"a\"")
        #expect(RestorePlanText.titles([note("a"), note("")]) == "\"a\" and \"(untitled)\"")
        #expect(RestorePlanText.titles([note("a"), note("b"), note("c")]) == "\"a\", \"b\" and \"c\"")
        let many = (1...8).map { note("n\($0)") }
        #expect(RestorePlanText.titles(many) == "\"n1\", \"n2\", \"n3\", \"n4\", \"n5\" and 3 more")
        let evil = RestorePlanText.titles([note("x\u{1B}[2J\ny")])
        #expect(!evil.contains("\u{1B}") && !evil.contains("\n"))
    }

    @Test("the trash and the earlier revisions are compared by id, and counted by note")
    func trashAndRevisions() {
        let (kept, back, gone) = (note("kept"), note("back"), note("gone"))
        var changes = NoteSetChanges(from: [], to: [])
        changes.compareTrash(from: [kept, gone], to: [kept, back])
        #expect(changes.trashAppear == [back])
        #expect(changes.trashDisappear == [gone])
        changes.compareRevisions(
            from: [kept.id: [1, 2], gone.id: [1]], to: [kept.id: [1, 2, 3, 4], back.id: [2]], headers: [kept, back, gone])
        #expect(changes.revisionsAppear == [.init(note: back, count: 1), .init(note: kept, count: 2)])
        #expect(changes.revisionsDisappear == [.init(note: gone, count: 1)])
        #expect(RestorePlanText.revisions(changes.revisionsAppear) == "3 (1 of \"back\" and 2 of \"kept\")")
        #expect(!changes.isEmpty)
    }

    @Test("a note that moves between the notes and the trash is said once, where it ends up")
    func movesBetweenNotesAndTrash() {
        let (intoTrash, outOfTrash, lost) = (note("into trash"), note("out of trash"), note("lost"))
        var changes = NoteSetChanges(from: [intoTrash], to: [outOfTrash])
        changes.compareTrash(from: [outOfTrash, lost], to: [intoTrash])
        #expect(changes.appear == [outOfTrash])
        #expect(changes.disappear == [])
        #expect(changes.toTrash == [intoTrash])
        #expect(changes.trashAppear == [])
        #expect(changes.trashDisappear == [lost])
    }
}
