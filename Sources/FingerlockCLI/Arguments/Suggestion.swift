/// "Did you mean …?" for a mistyped command, finger, setting or reader: the known words closest to
/// the typed one by edit distance, when they are close enough to be a slip of the keyboard.
enum Suggestion {
    /// The candidates nearest to `word` (several on a tie, in the candidates' order), or none when
    /// even the nearest differs by more than a typo would: a third of the word, at least 1 and at most 3.
    static func closest(to word: String, among candidates: [String]) -> [String] {
        let typed = Array(word.lowercased())
        let allowed = min(3, max(1, typed.count / 3))
        let scored = candidates.map { ($0, distance(typed, Array($0.lowercased()))) }
        guard let best = scored.map(\.1).min(), best <= allowed else { return [] }
        return scored.filter { $0.1 == best }.map(\.0)
    }

    /// `did you mean `enroll`?` (or `` `a` or `b` `` on a tie), nil when nothing is close.
    static func didYouMean(_ word: String, among candidates: [String]) -> String? {
        let nearest = closest(to: word, among: candidates)
        guard !nearest.isEmpty else { return nil }
        return "did you mean " + nearest.map { "`\($0)`" }.joined(separator: " or ") + "?"
    }

    /// Edits (insert, delete, substitute, swap two neighbours) turning `a` into `b`: the optimal
    /// string alignment distance, so `atuo` is one edit from `auto`, as a person counts it.
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], previous2[j - 2] + 1)
                }
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }
}
