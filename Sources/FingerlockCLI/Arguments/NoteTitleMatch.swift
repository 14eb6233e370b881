import Foundation
import Vault

/// Which notes a name typed on the command line means, by title, as a pass user types an entry's
/// name: the first rule that any title meets decides, so a more exact match is never drowned by a
/// looser one. All ignore case and diacritics (`munchner` is `Münchner Bank`).
///
/// 1. the whole title (`gmail` is `Gmail`);
/// 2. the start of the title (`gma` is `Gmail`);
/// 3. fuzzy: a part of the title (`mail` is `email/gmail`, as pass entries are imported), else the
///    typed letters in order with others between (`emgm` is `email/gmail`, as fzf matches), else
///    a title, or a word of one, a typo away (`gmial` is `gmail`, `githbu` is `web/github.com`: the
///    distance `Suggestion` allows for commands, a swap of neighbours one edit).
struct NoteTitleMatch: Equatable {
    enum Rule: String, Equatable {
        case exact = "title"
        case prefix = "title start"
        case part = "part of a title"
        case subsequence = "letters of a title"
        case typo = "title with a typo"
    }

    var rule: Rule
    /// Indices into the titles searched, in their order.
    var matches: [Int]

    /// The rule that decides for `name` among `titles`, with the titles it keeps; nil when none does.
    static func find(_ name: String, in titles: [String]) -> NoteTitleMatch? {
        let typed = folded(name)
        guard !typed.isEmpty else { return nil }
        let lowered = titles.map(folded)
        let rules: [(Rule, (String) -> Bool)] = [
            (.exact, { $0 == typed }),
            (.prefix, { $0.hasPrefix(typed) }),
            (.part, { $0.contains(typed) }),
            (.subsequence, { isSubsequence(typed, of: $0) }),
        ]
        for (rule, test) in rules {
            let matches = lowered.indices.filter { !lowered[$0].isEmpty && test(lowered[$0]) }
            if !matches.isEmpty { return NoteTitleMatch(rule: rule, matches: matches) }
        }
        // A typo: only titles at the smallest distance, and only within what a slip of the keyboard makes.
        let typedCharacters = Array(typed)
        let allowed = min(3, max(1, typedCharacters.count / 3))
        let distances = lowered.map { distance(typedCharacters, $0, within: allowed) }
        guard let best = distances.min(), best <= allowed else { return nil }
        return NoteTitleMatch(rule: .typo, matches: distances.indices.filter { distances[$0] == best })
    }

    /// The titles nearest to `name` (a typo or two further than `find` takes), for "did you mean":
    /// at most `count`, nearest first.
    static func nearest(_ name: String, in titles: [String], count: Int) -> [Int] {
        let typed = Array(folded(name))
        guard !typed.isEmpty else { return [] }
        let allowed = max(2, typed.count / 2)
        let scored = titles.indices.map { ($0, distance(typed, folded(titles[$0]), within: allowed)) }.filter { $0.1 <= allowed }
        return scored.sorted { $0.1 == $1.1 ? $0.0 < $1.0 : $0.1 < $1.1 }.prefix(count).map(\.0)
    }

    /// The fewest edits from `typed` to the title or to one of its words (split at `/`, `.`, `-`,
    /// `_`, spaces: the parts of a pass path or a site's name); `.max` past `allowed`. Titles and
    /// words far longer or shorter cannot be close, and are skipped: a big vault stays quick.
    static func distance(_ typed: [Character], _ title: String, within allowed: Int) -> Int {
        let words = [Substring(title)] + title.split { "/.-_ ".contains($0) }
        var best = Int.max
        for word in words where !word.isEmpty && abs(word.count - typed.count) <= allowed {
            best = min(best, Suggestion.distance(typed, Array(word)))
        }
        return best
    }

    /// Compared without case and diacritics, as people type on any keyboard.
    static func folded(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
    }

    /// Whether the characters of `typed` appear in `title` in order.
    static func isSubsequence(_ typed: String, of title: String) -> Bool {
        var wanted = typed.makeIterator()
        var next = wanted.next()
        for character in title where character == next {
            next = wanted.next()
            if next == nil { return true }
        }
        return next == nil
    }
}
