import FingerlockTestSupport
import Foundation
import Testing

@testable import NoteSync

@Suite("Three-way merge of a note", .timed)
struct MergeTests {
    let date = Date(timeIntervalSince1970: 1_800_000_000)

    func state(_ title: String, _ body: String, _ tags: [String] = []) -> NoteState {
        NoteState(title: title, body: body, tags: tags, created: date, modified: date)
    }

    @Test func changesToDifferentLinesBothApply() {
        let result = LineMerge.merge(base: "a\nb\nc\nd", ours: "A\nb\nc\nd", theirs: "a\nb\nc\nD")
        #expect(result == .init(text: "A\nb\nc\nD", conflicted: false))
    }

    @Test func linesAddedAtBothEndsBothApply() {
        let result = LineMerge.merge(base: "one\ntwo", ours: "zero\none\ntwo", theirs: "one\ntwo\nthree")
        #expect(result == .init(text: "zero\none\ntwo\nthree", conflicted: false))
    }

    @Test func theSameChangeOnBothSidesIsTakenOnce() {
        let result = LineMerge.merge(base: "a\nb", ours: "a\nB\nc", theirs: "a\nB\nc")
        #expect(result == .init(text: "a\nB\nc", conflicted: false))
    }

    @Test func overlappingChangesConflictAndKeepOurs() {
        let result = LineMerge.merge(base: "a\nb\nc", ours: "a\nX\nc", theirs: "a\nY\nc")
        #expect(result == .init(text: "a\nX\nc", conflicted: true))
    }

    @Test func differentFieldsBothApply() {
        let base = state("bank", "pin 1234", ["money"])
        let outcome = NoteMerge.merge(base: base, ours: state("bank (old)", "pin 1234", ["money"]), theirs: state("bank", "pin 9876", ["money"]))
        #expect(outcome.state.title == "bank (old)")
        #expect(outcome.state.body == "pin 9876")
        #expect(outcome.conflictCopy == nil)
    }

    @Test func tagsMergeAsSets() {
        let tags = NoteMerge.mergedTags(base: ["a", "b", "c"], ours: ["a", "c", "x"], theirs: ["a", "b", "y"])
        // ours removed b and added x; theirs removed c and added y.
        #expect(tags == ["a", "x", "y"])
    }

    @Test func theTitleChangedBothWaysMakesAConflictCopyOfTheirs() throws {
        let base = state("bank", "body")
        let outcome = NoteMerge.merge(base: base, ours: state("bank A", "body"), theirs: state("bank B", "body"))
        #expect(outcome.state.title == "bank A")
        let copy = try #require(outcome.conflictCopy)
        #expect(copy.title == "bank B (conflict)")
        #expect(copy.tags.contains(NoteMerge.conflictTag))
    }

    @Test func aDeletionRemovesOnlyTheVersionItSaw() {
        let base = state("t", "b")
        #expect(NoteMerge.merge(base: base, ours: .tombstone(at: date), theirs: base).state.deleted)
        let edited = NoteMerge.merge(base: base, ours: .tombstone(at: date), theirs: state("t", "b edited"))
        #expect(!edited.state.deleted)
        #expect(edited.restored)
        #expect(edited.state.body == "b edited")
        #expect(edited.state.tags == [NoteMerge.conflictTag])
    }

    @Test func notesMadeOnTwoMachinesWithOneIdAndNoBaseConflictWhereTheyDiffer() {
        let outcome = NoteMerge.merge(base: nil, ours: state("same", "one"), theirs: state("same", "two"))
        #expect(outcome.conflictCopy != nil)
    }

    @Test func aHugeBodyMergesOnlyWhenOneSideLeftItAlone() {
        let base = (0..<3000).map { "line \($0)" }.joined(separator: "\n")
        let ours = base + "\nmine"
        #expect(LineMerge.merge(base: base, ours: ours, theirs: base).text == ours)
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            _ = LineMerge.merge(base: base, ours: "x\n" + base, theirs: base.replacingOccurrences(of: "line 1500", with: "LINE"))
        }
        #expect(elapsed < .seconds(5))
    }
}
