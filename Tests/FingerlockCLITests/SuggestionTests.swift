import FingerlockTestSupport
import Testing

@testable import FingerlockCLI

/// The shared edit-distance helper behind every suggestion.
@Suite(.timed) struct SuggestionTests {
    @Test(
        "distance counts insertions, deletions, substitutions and swapped neighbours as one edit each",
        arguments: [
            ("enrol", "enroll", 1), ("atuo", "auto", 1), ("kitten", "sitting", 3), ("", "abc", 3), ("same", "same", 0),
            ("right-indx-finger", "right-index-finger", 1),
        ])
    func distance(_ a: String, _ b: String, _ expected: Int) {
        #expect(Suggestion.distance(Array(a), Array(b)) == expected)
        #expect(Suggestion.distance(Array(b), Array(a)) == expected)
    }

    @Test func onlyCloseWordsAreSuggestedAndTiesListEveryCandidate() {
        #expect(Suggestion.closest(to: "ENROL", among: ["enroll", "verify"]) == ["enroll"])
        #expect(Suggestion.closest(to: "xyz", among: ["enroll", "verify"]).isEmpty)
        // Two letters allow one edit: `rm` is one away, `ls` two.
        #expect(Suggestion.closest(to: "rn", among: ["rm", "ls"]) == ["rm"])
        #expect(Suggestion.didYouMean("lisr", among: ["list", "lisp"]) == "did you mean `list` or `lisp`?")
        #expect(Suggestion.didYouMean("zzzz", among: ["list"]) == nil)
    }
}
