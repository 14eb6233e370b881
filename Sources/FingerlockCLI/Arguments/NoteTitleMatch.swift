import Foundation
import Vault

/// Which notes a name typed on the command line means, by title, as a pass user types an entry's
/// name: the first rule that any title meets decides, so a more exact match is never drowned by a
/// looser one. All ignore case.
///
/// 1. the whole title (`gmail` is `Gmail`);
/// 2. the start of the title (`gma` is `Gmail`);
/// 3. fuzzy: a part of the title (`mail` is `email/gmail`, as pass entries are imported), else the
///    typed letters in order with others between (`emgm` is `email/gmail`, as fzf matches), else
///    a title a typo away (`gmial` is `gmail`, the distance `Suggestion` allows for commands).
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
        let typed = name.lowercased()
        guard !typed.isEmpty else { return nil }
        let lowered = titles.map { $0.lowercased() }
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
        // Titles far longer or shorter cannot be close; skipping them keeps a big vault quick.
        let distances = lowered.map { title -> Int in
            abs(title.count - typedCharacters.count) > allowed || title.isEmpty
                ? .max : Suggestion.distance(typedCharacters, Array(title))
        }
        guard let best = distances.min(), best <= allowed else { return nil }
        return NoteTitleMatch(rule: .typo, matches: distances.indices.filter { distances[$0] == best })
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
